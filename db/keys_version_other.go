//go:build !unix

package db

// sharedCounter has no shared memory here: openSharedCounter returns nil,
// KeysVersion reports nothing may be kept, and every request reads its key.
type sharedCounter struct{}

func openSharedCounter(string) (*sharedCounter, error) { return nil, nil }

func (*sharedCounter) load() uint64 { return 1 }
func (*sharedCounter) store(uint64) {}
func (*sharedCounter) lock() error  { return nil }
func (*sharedCounter) unlock()      {}
func (*sharedCounter) close() error { return nil }
