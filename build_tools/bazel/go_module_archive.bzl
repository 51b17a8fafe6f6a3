"""Repository rule that fetches a Go module through the Go module proxy.

This is the offline substitute for `http_archive`: Bazel rule sets such as
rules_go and gazelle are published as Go modules, and the Go module proxy is
the one registry these machines reach. The rule runs the host `go` tool
(`go mod download -json module@version`), checks the module's `h1:` sum,
copies the extracted module into the repository directory and applies the
patch files given in `patches` (kept under `//third_party`).

With internet access the same repositories can be declared with
`http_archive` and the same `patches` (see README.md).
"""

def _go_tool(rctx):
    """Returns the path of the host `go` binary or fails with a clear message."""
    goroot = rctx.os.environ.get("GOROOT", "")
    if goroot:
        candidate = rctx.path(goroot + "/bin/go")
        if candidate.exists:
            return candidate
    found = rctx.which("go")
    if found:
        return found
    for candidate in ["/usr/local/go/bin/go", "/usr/lib/go/bin/go"]:
        if rctx.path(candidate).exists:
            return rctx.path(candidate)
    fail("go_module_archive(%s): no `go` tool found on PATH or in GOROOT; install Go >= 1.20" % rctx.name)

def _json_string_field(text, field):
    """Extracts a string field from `go mod download -json` output."""
    key = "\"%s\": \"" % field
    start = text.find(key)
    if start < 0:
        return None
    start += len(key)
    end = text.find("\"", start)
    return text[start:end]

def _go_module_archive_impl(rctx):
    go = _go_tool(rctx)
    spec = "%s@%s" % (rctx.attr.module, rctx.attr.version)

    # Run outside any module (the repository directory is empty at this
    # point) so that a go.work or go.mod above it cannot interfere.
    env = {
        "GO111MODULE": "on",
        "GOWORK": "off",
        "GOFLAGS": "-mod=mod",
        "GOTOOLCHAIN": "local",
    }
    result = rctx.execute([go, "mod", "download", "-json", spec], environment = env, timeout = 600)
    error = _json_string_field(result.stdout, "Error")
    if result.return_code != 0 or error:
        fail("go_module_archive(%s): `go mod download %s` failed: %s%s" % (
            rctx.name,
            spec,
            error or "",
            result.stderr,
        ))
    src = _json_string_field(result.stdout, "Dir")
    got_sum = _json_string_field(result.stdout, "Sum")
    if not src:
        fail("go_module_archive(%s): `go mod download` did not report a directory for %s" % (rctx.name, spec))
    if rctx.attr.sum and got_sum != rctx.attr.sum:
        fail("go_module_archive(%s): checksum mismatch for %s: want %s, got %s" % (
            rctx.name,
            spec,
            rctx.attr.sum,
            got_sum,
        ))

    # The module cache is read-only; copy it and make the copy writable so
    # that patches can be applied.
    for cmd in [["cp", "-R", src + "/.", "."], ["chmod", "-R", "u+w", "."]]:
        result = rctx.execute(cmd)
        if result.return_code != 0:
            fail("go_module_archive(%s): %s failed: %s" % (rctx.name, " ".join(cmd), result.stderr))

    for patch in rctx.attr.patches:
        result = rctx.execute(["patch", "-p%d" % rctx.attr.patch_strip, "-i", rctx.path(patch), "--no-backup-if-mismatch", "-s"])
        if result.return_code != 0:
            fail("go_module_archive(%s): applying %s failed:\n%s%s" % (rctx.name, patch, result.stdout, result.stderr))

    if rctx.attr.vendor:
        # Module zips keep only vendor/modules.txt; tools that build from
        # vendor/ in GOPATH mode need the tree rebuilt.
        result = rctx.execute([go, "mod", "vendor"], environment = env, timeout = 600)
        if result.return_code != 0:
            fail("go_module_archive(%s): `go mod vendor` failed: %s" % (rctx.name, result.stderr))

    if not rctx.path("WORKSPACE").exists and not rctx.path("WORKSPACE.bazel").exists:
        rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)

go_module_archive = repository_rule(
    implementation = _go_module_archive_impl,
    doc = "Fetches a Go module through the Go module proxy and applies patches, like http_archive.",
    attrs = {
        "module": attr.string(mandatory = True, doc = "Module path, e.g. github.com/bazelbuild/rules_go."),
        "version": attr.string(mandatory = True, doc = "Module version, e.g. v0.34.0."),
        "sum": attr.string(doc = "Expected h1: sum of the module zip, as in go.sum."),
        "patches": attr.label_list(allow_files = [".patch"], doc = "Patch files applied in order."),
        "patch_strip": attr.int(default = 1, doc = "Leading path components stripped from patch paths."),
        "vendor": attr.bool(default = False, doc = "Run `go mod vendor` in the copy after patching."),
    },
    environ = ["GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOSUMDB", "GOROOT", "PATH"],
)
