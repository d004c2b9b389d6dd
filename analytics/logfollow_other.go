//go:build !unix

package analytics

import "os"

// fileIdentity is a file's device and inode, which only Unix has: a
// followed file is then known again by its first bytes alone.
func fileIdentity(os.FileInfo) (dev, ino uint64) { return 0, 0 }
