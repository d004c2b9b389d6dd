//go:build unix

package analytics

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestMappingReleasesOnlyWholePagesLeft: release gives back the pages that
// lie wholly in ranges left (joined across the padding between arrays), so
// they read as the file again, and keeps every page with a byte still
// referred to, written or not.
func TestMappingReleasesOnlyWholePagesLeft(t *testing.T) {
	page := os.Getpagesize()
	file := make([]byte, 8*page)
	for i := range file {
		file[i] = byte(i / page)
	}
	path := filepath.Join(t.TempDir(), "m")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mapSnapshot(f, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	for i := page; i < 7*page; i++ {
		data[i] = 0xff // written: the process's own copy of pages 1-6
	}
	m := &snapshotMapping{data: data}
	left := func(from, to int) { m.left(unsafe.Pointer(&data[from]), to-from) }
	left(page+8, 3*page-4)              // page 1 keeps 8 bytes referred to
	left(3*page, 5*page+100)            // 4 bytes of padding apart: one run, through page 4
	left(6*page+1, 6*page+50)           // part of page 6
	m.left(unsafe.Pointer(&file[0]), 8) // not in the mapping: ignored
	m.release(1 << 20)
	if data[2*page] != 0xff {
		t.Fatal("release gave pages back before the ranges added up to its minimum")
	}
	m.release(0)
	for p, want := range []byte{0, 0xff, 2, 3, 4, 0xff, 0xff, 7} {
		for _, i := range []int{p * page, p*page + page - 1} {
			if data[i] != want {
				t.Errorf("page %d byte %d reads %#x after the release, want %#x", p, i-p*page, data[i], want)
			}
		}
	}
	if m.deadBytes != 0 || len(m.dead) != 0 {
		t.Errorf("the ranges released are still noted: %d bytes", m.deadBytes)
	}
}
