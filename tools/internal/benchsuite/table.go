package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// row is one line of the result table.
type row struct {
	name   string
	ours   string
	ref    string
	ratio  float64 // NaN when the figure has no ratio
	target string
	met    bool
	note   string
	// skip, when set, says why the figure was not measured (or could
	// not be judged): the met cell reads "-" and the reason is a note.
	skip string
	// oursTime is the time the ours cell stands for, where a later row
	// takes this one as its reference (0: not measured).
	oursTime time.Duration
}

// skipped returns a row for a figure that was not measured.
func skipped(name, target, why string) row {
	return row{name: name, ours: "skipped", ref: "-", ratio: nan(), target: target, skip: why}
}

// printTable writes the rows as an aligned text table.
func printTable(w io.Writer, rows []row) {
	head := []string{"figure", "ours", "reference", "ratio", "target", "met"}
	cells := [][]string{head}
	for _, r := range rows {
		ratio := "-"
		if !math.IsNaN(r.ratio) {
			ratio = fmt.Sprintf("%.3f", r.ratio)
		}
		met := "no"
		if r.skip != "" {
			met = "-"
		} else if r.met {
			met = "yes"
		}
		cells = append(cells, []string{r.name, r.ours, r.ref, ratio, r.target, met})
	}
	widths := make([]int, len(head))
	for _, c := range cells {
		for i, s := range c {
			widths[i] = max(widths[i], len([]rune(s)))
		}
	}
	for n, c := range cells {
		var b strings.Builder
		for i, s := range c {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(s)
			if i < len(c)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(s))))
			}
		}
		fmt.Fprintln(w, b.String())
		if n == 0 {
			total := 2 * (len(widths) - 1)
			for _, x := range widths {
				total += x
			}
			fmt.Fprintln(w, strings.Repeat("-", total))
		}
	}
	for _, r := range rows {
		switch {
		case r.skip != "" && r.note != "":
			fmt.Fprintf(w, "%s: %s; %s\n", r.name, r.skip, r.note)
		case r.skip != "":
			fmt.Fprintf(w, "%s: %s\n", r.name, r.skip)
		case r.note != "":
			fmt.Fprintf(w, "%s: %s\n", r.name, r.note)
		}
	}
}

// median returns the median of ds (the mean of the middle two for an even
// count); 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// gbps is the bandwidth of moving bytes in d, in GB/s.
func gbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds() / 1e9
}

// bandwidthRow compares our time to a reference time for the same bytes:
// the ratio is our bandwidth over the reference's, met when ≥ minRatio.
func bandwidthRow(name string, bytes int64, ours, ref time.Duration, refName string, minRatio float64) row {
	r := row{
		name:   name,
		ours:   fmt.Sprintf("%.2f GB/s (%s)", gbps(bytes, ours), fmtDur(ours)),
		ref:    fmt.Sprintf("%.2f GB/s (%s, %s)", gbps(bytes, ref), fmtDur(ref), refName),
		ratio:  float64(ref) / float64(ours),
		target: fmt.Sprintf("ratio ≥ %.2f", minRatio),
	}
	r.met = r.ratio >= minRatio
	return r
}

// fmtDur prints a duration with three significant digits in a fitting unit.
func fmtDur(d time.Duration) string {
	ns := float64(d)
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

func nan() float64 { return math.NaN() }
