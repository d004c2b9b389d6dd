package db

import "fmt"

// KeysVersion lets a process keep API keys in memory and still see, on the
// next request, a key revoked by any process using the database: the
// dashboard in this one, `folio key revoke` in another, a second server.
//
// It is a counter shared by all of them through a small file beside the
// database ("<db>-keys"), mapped into memory by each, as SQLite shares its
// WAL index through "<db>-shm". A change that can end a key's validity makes
// it odd before the change commits and even, and higher, after. So a key
// read while the counter stood at an even v is good for exactly as long as
// the counter still reads v. ok is false while a change is under way, or
// where the platform has no shared counter: then nothing may be kept.
func (d *DB) KeysVersion() (v uint64, ok bool) {
	if d.keys == nil {
		return 0, false
	}
	v = d.keys.load()
	return v, v%2 == 0
}

// changeKeys runs commit, a write that can end keys' validity, inside the
// keys version's odd window (sharedCounter.change).
func (d *DB) changeKeys(commit func() error) error {
	return d.keys.change(commit)
}

// change runs commit inside the counter's odd window: odd before, even and
// higher after. Writers take turns (a lock on the file, and a mutex in the
// process); a writer that dies inside the window leaves the counter odd,
// which keeps every cache off until the next change or the next process
// start repairs it. A nil counter (no shared memory on this platform) just
// commits.
func (c *sharedCounter) change(commit func() error) error {
	if c == nil {
		return commit()
	}
	if err := c.lock(); err != nil {
		return fmt.Errorf("db: unable to lock a shared version: %w", err)
	}
	defer c.unlock()
	v := c.load()
	if v%2 == 0 {
		c.store(v + 1)
	}
	err := commit()
	c.store(v | 1 + 1) // even, and above any value seen before
	return err
}
