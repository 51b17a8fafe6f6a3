package hal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

func newTestBuffer(t *testing.T, size int64) *Buffer {
	t.Helper()
	b, err := NewHostAllocator(-1).AllocateBuffer(BufferParams{}, size)
	if err != nil {
		t.Fatalf("AllocateBuffer(%d): %v", size, err)
	}
	return b
}

func TestCheckRange(t *testing.T) {
	tests := []struct {
		off, length, size int64
		want              int64
		err               string
	}{
		{0, 10, 10, 10, ""},
		{3, WholeBuffer, 10, 7, ""},
		{10, 0, 10, 0, ""},
		{10, WholeBuffer, 10, 0, ""},
		{0, 11, 10, 0, "range [0, 11) exceeds buffer of 10 bytes"},
		{5, 6, 10, 0, "range [5, 11) exceeds buffer of 10 bytes"},
		{11, 0, 10, 0, "offset 11 exceeds buffer of 10 bytes"},
		{-1, 1, 10, 0, "negative offset -1"},
		{0, -5, 10, 0, "negative length -5"},
		{1, 1<<63 - 1, 10, 0, "range [1, overflow) exceeds buffer of 10 bytes"},
	}
	for _, tt := range tests {
		got, err := CheckRange(tt.off, tt.length, tt.size)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CheckRange(%d, %d, %d) error = %v, want %q", tt.off, tt.length, tt.size, err, tt.err)
			}
			if status.CodeOf(err) != status.OutOfRange {
				t.Errorf("CheckRange(%d, %d, %d) code = %v, want OUT_OF_RANGE", tt.off, tt.length, tt.size, status.CodeOf(err))
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CheckRange(%d, %d, %d) = %d, %v; want %d", tt.off, tt.length, tt.size, got, err, tt.want)
		}
	}
}

func TestSubspanAndMapping(t *testing.T) {
	b := newTestBuffer(t, 100)
	tests := []struct {
		name        string
		off, length int64
		wantLen     int64
		err         string
	}{
		{"whole", 0, WholeBuffer, 100, ""},
		{"middle", 10, 20, 20, ""},
		{"tail", 90, WholeBuffer, 10, ""},
		{"empty at end", 100, 0, 0, ""},
		{"past end", 90, 20, 0, "subspan: range [90, 110) exceeds buffer of 100 bytes"},
		{"negative", -4, 2, 0, "subspan: negative offset -4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := b.Subspan(tt.off, tt.length)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.ByteLength() != tt.wantLen || s.ByteOffset() != tt.off {
				t.Errorf("subspan = [%d +%d), want [%d +%d)", s.ByteOffset(), s.ByteLength(), tt.off, tt.wantLen)
			}
			if err := s.Release(); err != nil {
				t.Fatal(err)
			}
		})
	}

	// Writes through a subspan are visible in the parent at the right place.
	sub, err := b.Subspan(10, 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Fill(0, WholeBuffer, []byte{0xAB}); err != nil {
		t.Fatal(err)
	}
	if err := sub.Write(4, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8)
	if err := b.Read(12, got); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xAB, 0xAB, 1, 2, 3, 0xAB, 0xAB, 0xAB}; !bytes.Equal(got, want) {
		t.Errorf("parent bytes = %x, want %x", got, want)
	}
	if err := sub.Write(18, []byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "range [18, 21) exceeds buffer of 20 bytes") {
		t.Errorf("write past subspan end: error = %v", err)
	}
	m, err := sub.Map(MemoryAccessRead, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Bytes()) != 5 || m.Bytes()[0] != 2 {
		t.Errorf("mapped bytes = %x", m.Bytes())
	}
	if err := m.Unmap(); err != nil {
		t.Fatal(err)
	}
	if m.Bytes() != nil {
		t.Error("Bytes after Unmap is not nil")
	}
	if err := m.Unmap(); err == nil {
		t.Error("second Unmap succeeded")
	}
	if _, err := sub.Map(0, 0, 1); err == nil {
		t.Error("Map with no access succeeded")
	}
	if err := sub.Release(); err != nil {
		t.Fatal(err)
	}
	if err := sub.Release(); err == nil || !strings.Contains(err.Error(), "released twice") {
		t.Errorf("double release: %v", err)
	}
	if _, err := sub.Map(MemoryAccessRead, 0, 1); err == nil || !strings.Contains(err.Error(), "released buffer") {
		t.Errorf("map after release: %v", err)
	}
}

func TestMapRequiresHostVisibleAndMappingUsage(t *testing.T) {
	a := NewHostAllocator(0)
	b, err := a.AllocateBuffer(BufferParams{Usage: BufferUsageDefault}, 16)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Map(MemoryAccessRead, 0, 4); err == nil || !strings.Contains(err.Error(), "no MAPPING usage") {
		t.Errorf("map without mapping usage: %v", err)
	}
}

func TestFillPatterns(t *testing.T) {
	b := newTestBuffer(t, 16)
	tests := []struct {
		off, length int64
		pattern     []byte
		err         string
	}{
		{0, 16, []byte{1, 2, 3, 4}, ""},
		{2, 4, []byte{9, 8}, ""},
		{0, 16, []byte{1, 2, 3}, "fill pattern length 3 is not 1, 2 or 4 bytes"},
		{2, 4, []byte{1, 2, 3, 4}, "fill range [2, 6) is not aligned to the 4-byte pattern"},
		{8, 12, []byte{1}, "range [8, 20) exceeds buffer of 16 bytes"},
	}
	for _, tt := range tests {
		err := b.Fill(tt.off, tt.length, tt.pattern)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Fill(%d, %d, %x) = %v, want %q", tt.off, tt.length, tt.pattern, err, tt.err)
		}
	}
	got := make([]byte, 16)
	if err := b.Read(0, got); err != nil {
		t.Fatal(err)
	}
	if want := []byte{1, 2, 9, 8, 9, 8, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}; !bytes.Equal(got, want) {
		t.Errorf("bytes = %v, want %v", got, want)
	}
}

func TestBufferView(t *testing.T) {
	b := newTestBuffer(t, 32)
	tests := []struct {
		shape Shape
		et    ElementType
		err   string
	}{
		{Shape{8}, ElementTypeF32, ""},
		{Shape{2, 2}, ElementTypeF64, ""},
		{Shape{}, ElementTypeI8, ""},
		{Shape{9}, ElementTypeF32, "buffer view 9xf32 needs 36 bytes but the buffer has 32"},
		{Shape{-1}, ElementTypeF32, "negative dimension"},
		{Shape{1 << 40, 1 << 40}, ElementTypeF32, "too many elements"},
		{Shape{1 << 61}, ElementTypeF64, "too large"},
	}
	for _, tt := range tests {
		v, err := NewBufferView(b, tt.shape, tt.et, EncodingDenseRowMajor)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("NewBufferView(%v, %v) error = %v, want %q", tt.shape, tt.et, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("NewBufferView(%v, %v): %v", tt.shape, tt.et, err)
			continue
		}
		want, _ := DenseByteLength(tt.shape, tt.et)
		if v.ByteLength() != want || v.Rank() != len(tt.shape) {
			t.Errorf("view %v: byte length %d rank %d", v, v.ByteLength(), v.Rank())
		}
	}
}

func TestHostAllocatorReusesSizeClasses(t *testing.T) {
	a := NewHostAllocator(-1)
	b1, err := a.AllocateBuffer(BufferParams{}, 5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	hb1, _ := b1.HostBytes()
	if err := b1.Release(); err != nil {
		t.Fatal(err)
	}
	b2, err := a.AllocateBuffer(BufferParams{}, 4_900_000) // same size class
	if err != nil {
		t.Fatal(err)
	}
	hb2, _ := b2.HostBytes()
	if &hb1[0] != &hb2[0] {
		t.Error("allocation of the same size class did not reuse memory")
	}
	if p := uintptr(unsafeAddr(hb2)); p%BufferAlignment != 0 {
		t.Errorf("buffer address %#x not %d-aligned", p, BufferAlignment)
	}
	st := a.Statistics()
	if st.PoolHits != 1 || st.PoolMisses != 1 {
		t.Errorf("stats = %+v, want 1 hit and 1 miss", st)
	}
	if !strings.Contains(st.String(), "HOST_LOCAL") {
		t.Errorf("statistics text lacks HOST_LOCAL:\n%s", st)
	}
	// A subspan keeps the allocation alive: releasing the parent first
	// must not return the memory to the pool.
	sub, _ := b2.Subspan(0, 10)
	b2.Release()
	if a.Statistics().CachedBytes != 0 {
		t.Error("memory cached while a subspan is alive")
	}
	sub.Release()
	if a.Statistics().CachedBytes != SizeClass(4_900_000) {
		t.Errorf("cached = %d, want %d", a.Statistics().CachedBytes, SizeClass(4_900_000))
	}
	if _, err := a.AllocateBuffer(BufferParams{}, MaxBufferSize+1); err == nil {
		t.Error("oversized allocation succeeded")
	}
}

func TestSizeClass(t *testing.T) {
	tests := []struct{ n, want int64 }{
		{100, 100}, {4096, 4096}, {4097, 8192}, {1 << 20, 1 << 20},
		{(1 << 20) + 1, 1<<20 + 1<<18}, {64 << 20, 64 << 20}, {(64 << 20) + 5, 80 << 20},
	}
	for _, tt := range tests {
		got := SizeClass(tt.n)
		if got != tt.want {
			t.Errorf("SizeClass(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

// BenchmarkAllocate64MB compares writing a freshly allocated 64 MB Go slice
// with writing a buffer reused from the HostAllocator's size-class pool.
func BenchmarkAllocate64MB(b *testing.B) {
	const size = 64 << 20
	b.Run("fresh-go-slice", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			s := make([]byte, size)
			FillBytes(s, []byte{byte(i)})
		}
	})
	b.Run("host-allocator-reuse", func(b *testing.B) {
		a := NewHostAllocator(-1)
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			buf, err := a.AllocateBuffer(BufferParams{}, size)
			if err != nil {
				b.Fatal(err)
			}
			if err := buf.Fill(0, WholeBuffer, []byte{byte(i)}); err != nil {
				b.Fatal(err)
			}
			buf.Release()
		}
	})
}
