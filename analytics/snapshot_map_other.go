//go:build !unix

package analytics

import (
	"io"
	"os"
)

// mapSnapshot reads the snapshot file into memory (8-byte aligned).
func mapSnapshot(f *os.File, size int64) ([]byte, func(), error) {
	data := asBytes(make([]uint64, (size+7)/8))[:size]
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

// releasePages does nothing: the "mapping" is one allocation of the heap,
// freed whole once the index no longer holds it.
func releasePages(b []byte) {}
