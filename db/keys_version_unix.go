//go:build unix

package db

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// sharedCounter is a uint64 in a file mapped shared into every process that
// opens it, written under an exclusive flock on the file.
type sharedCounter struct {
	f   *os.File
	mem []byte
	mu  sync.Mutex // flock is per open file: goroutines of one process queue here
}

func openSharedCounter(path string) (*sharedCounter, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) // #nosec G304 -- the database's own path (FOLIO_DB) with -keys or -data added
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*sharedCounter, error) {
		_ = f.Close() // err is the one to report
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if fi.Size() < 8 {
		// Growing to 8 bytes zero-fills; a file another process has
		// already grown keeps its value.
		if err := f.Truncate(8); err != nil {
			return fail(err)
		}
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return fail(err)
	}
	c := &sharedCounter{f: f, mem: mem}
	// Odd with the lock free: a writer died inside its window. Whatever it
	// did is committed or not; either way the database is the truth again.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		if v := c.load(); v%2 == 1 {
			c.store(v + 1)
		}
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // fails only for a bad descriptor; closing it would free the lock anyway
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		_ = c.close() // err is the one to report
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// word is the mapped counter; a mapping starts on a page, so it is aligned.
func (c *sharedCounter) word() *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&c.mem[0])) // #nosec G103 -- 8 mapped bytes at a page's start: the size and alignment atomic.Uint64 needs
}

func (c *sharedCounter) load() uint64 { return c.word().Load() }

func (c *sharedCounter) store(v uint64) { c.word().Store(v) }

func (c *sharedCounter) lock() error {
	c.mu.Lock()
	for {
		err := syscall.Flock(int(c.f.Fd()), syscall.LOCK_EX)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EINTR) {
			c.mu.Unlock()
			return err
		}
	}
}

func (c *sharedCounter) unlock() {
	_ = syscall.Flock(int(c.f.Fd()), syscall.LOCK_UN) // fails only for a bad descriptor, which lock would have met first
	c.mu.Unlock()
}

func (c *sharedCounter) close() error {
	return errors.Join(syscall.Munmap(c.mem), c.f.Close())
}
