// Package outfile writes the tools' output files (iree-compile -o,
// iree-run-module --output=@file and +file, the compiler's dump
// directories) so that they never destroy what the path names.
//
// A path that names a regular file, or nothing yet, is written atomically:
// the new contents go to a temporary file in the same directory, which is
// renamed over the path, so readers see the old file or the whole new one
// and a failure leaves the old file as it was. Anything else is written in
// place and never replaced: a character or block device (/dev/null), a
// FIFO, a socket, or a path under /proc such as /dev/stdout, which is a
// link to /proc/self/fd/1. Renaming over those would put a regular file
// where the device or pipe was (as root, `-o /dev/null` would replace the
// machine's /dev/null). A symbolic link is followed: its target is written
// (atomically when it is a regular file), the link itself stays.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Error is a failure to write an output file. Path is the path as given;
// Err is the cause with any temporary file's name stripped, so messages
// name the output only.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("writing %s: %v", e.Path, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// ErrIsDirectory is the cause when an output path names a directory.
var ErrIsDirectory = errors.New("is a directory")

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// Write writes data to path: atomically when path is (or leads through
// symbolic links to) a regular file or nothing, in place otherwise.
// Errors are *Error.
func Write(path string, data []byte) error {
	f, err := Prepare(path, data, false)
	if err != nil {
		return err
	}
	defer f.Discard()
	return f.Commit()
}

// Append appends data to path, creating it when missing; a regular file is
// rewritten atomically with its old contents followed by data. Errors are
// *Error.
func Append(path string, data []byte) error {
	f, err := Prepare(path, data, true)
	if err != nil {
		return err
	}
	defer f.Discard()
	return f.Commit()
}

// File is an output prepared by Prepare: for a regular file, its complete
// new contents in a temporary file beside it; for a device, FIFO or /proc
// path, the data to write in place. Commit writes it, Discard drops it.
// Preparing every output before committing any keeps a failure (a missing
// directory, a full disk) from leaving some files replaced and others not.
type File struct {
	path    string // as given, for errors
	target  string // after following symbolic links
	inPlace bool
	append  bool
	data    []byte // in place only
	tmp     string // atomic only: the staged temporary file
}

// target describes where a path leads.
type target struct {
	path    string      // the path after following symbolic links
	info    os.FileInfo // nil when nothing exists there
	inPlace bool        // a device, FIFO, socket or /proc path
}

// resolve follows path's symbolic links to what it names.
func resolve(path string) (target, error) {
	p := path
	for links := 0; ; links++ {
		// The directory's own links resolved, so that a relative link
		// target is taken from its physical directory (".." is its real
		// parent) and /dev/fd/N is seen to lie under /proc.
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(d, filepath.Base(p))
		}
		if underProc(p) {
			// /proc/self/fd/N and friends are links the kernel resolves
			// to open files (pipes, terminals, files opened by the shell),
			// not paths a rename could replace: open them as they are.
			return target{path: p, inPlace: true}, nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return target{path: p}, nil
		}
		if err != nil {
			return target{}, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			switch {
			case fi.IsDir():
				return target{}, ErrIsDirectory
			case fi.Mode().IsRegular():
				return target{path: p, info: fi}, nil
			}
			return target{path: p, info: fi, inPlace: true}, nil
		}
		if links == maxLinks {
			return target{}, syscall.ELOOP
		}
		link, err := os.Readlink(p)
		if err != nil {
			return target{}, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
}

// underProc reports whether p lies under /proc, where /dev/stdout and
// /dev/fd/N lead.
func underProc(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	c := filepath.Clean(p)
	return c == "/proc" || strings.HasPrefix(c, "/proc/")
}

// Prepare stages data for path (appended to its current contents when
// appendMode is set): for a regular file or a path that does not exist yet,
// it writes the complete new contents to a temporary file in the target's
// directory; for anything else it only records the data, which Commit
// writes in place. Errors are *Error.
func Prepare(path string, data []byte, appendMode bool) (*File, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, &Error{Path: path, Err: cause(err)}
	}
	f := &File{path: path, target: t.path, append: appendMode}
	if t.inPlace {
		f.inPlace = true
		f.data = data
		return f, nil
	}
	perm := fs.FileMode(0o644)
	if t.info != nil {
		// Keep the mode of the file being replaced.
		perm = t.info.Mode().Perm()
	}
	if appendMode && t.info != nil {
		old, err := os.ReadFile(t.path)
		if err != nil {
			return nil, &Error{Path: path, Err: cause(err)}
		}
		data = append(old, data...)
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), "."+filepath.Base(t.path)+".tmp*")
	if err != nil {
		return nil, &Error{Path: path, Err: cause(err)}
	}
	f.tmp = tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.tmp, perm)
	}
	if werr != nil {
		f.Discard()
		return nil, &Error{Path: path, Err: cause(werr)}
	}
	return f, nil
}

// Commit writes the prepared output: renames the temporary file over the
// target, or writes the data in place. If the target has become something
// other than a regular file since Prepare (say, a FIFO), the staged
// contents are written into it in place instead of replacing it. Errors
// are *Error.
func (f *File) Commit() error {
	if f.inPlace {
		return f.writeInPlace(f.target, f.data)
	}
	if f.tmp == "" {
		return nil
	}
	if fi, err := os.Lstat(f.target); err == nil && !fi.Mode().IsRegular() {
		t, err := resolve(f.target)
		if err != nil {
			return &Error{Path: f.path, Err: cause(err)}
		}
		if t.inPlace {
			data, err := os.ReadFile(f.tmp)
			if err != nil {
				return &Error{Path: f.path, Err: cause(err)}
			}
			f.Discard()
			return f.writeInPlace(t.path, data)
		}
		// Now a link to a regular file or to nothing: rename onto that.
		f.target = t.path
	}
	if err := os.Rename(f.tmp, f.target); err != nil {
		return &Error{Path: f.path, Err: cause(err)}
	}
	f.tmp = ""
	return nil
}

// writeInPlace opens an existing device, FIFO, socket or /proc path for
// writing, without creating or truncating it, and writes data. /proc paths
// (the shell's redirections behind /dev/stdout) are opened for appending,
// so that data lands after what the process already wrote there.
func (f *File) writeInPlace(p string, data []byte) error {
	flags := os.O_WRONLY
	if f.append || underProc(p) {
		flags |= os.O_APPEND
	}
	w, err := os.OpenFile(p, flags, 0)
	if err != nil {
		return &Error{Path: f.path, Err: cause(err)}
	}
	_, werr := w.Write(data)
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return &Error{Path: f.path, Err: cause(werr)}
	}
	return nil
}

// Discard removes the temporary file of an output not committed; it does
// nothing after Commit or for in-place outputs.
func (f *File) Discard() {
	if f.tmp != "" {
		os.Remove(f.tmp)
		f.tmp = ""
	}
}

// cause strips the file name from a file system error, so that an Error
// names the output path only.
func cause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
