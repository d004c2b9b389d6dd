//go:build unix

package analytics

import (
	"os"
	"syscall"
)

// fileIdentity is a file's device and inode.
func fileIdentity(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
