//go:build unix

package analytics

import (
	"os"
	"syscall"
)

// mapSnapshot maps the snapshot file privately (written pages are copied,
// never written back): its arrays are then outside the Go heap, which the
// collector sizes its target by, so a 2 GB index does not let 2 GB more
// of garbage pile up before a collection; release unmaps it.
func mapSnapshot(f *os.File, size int64) ([]byte, func(), error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	// Munmap fails only for a range that is not a mapping, which data is.
	return data, func() { _ = syscall.Munmap(data) }, nil
}

// releasePages gives the kernel back pages of the mapping nothing refers
// to any more: they stop counting as the process's, and would read as the
// file again.
func releasePages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED) // advice: refused, the pages stay resident, and nothing else changes
}
