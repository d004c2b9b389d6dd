package auth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/folio-docs/folio/model"
)

// keyCacheMax bounds the keys kept; past it the cache starts over. Only keys
// found in the database are kept, so unknown keys cannot fill it.
const keyCacheMax = 10_000

// keyCache keeps the keys requests presented, each with the keys version
// (db.DB.KeysVersion) it was read at: an entry answers only while the
// version still reads the same, so a key revoked by any process is read
// again, and refused, on its next request.
type keyCache struct {
	mu sync.RWMutex
	m  map[[sha256.Size]byte]cachedKey
}

type cachedKey struct {
	key     model.APIKey
	version uint64
}

func (c *keyCache) get(hash [sha256.Size]byte, version uint64) (model.APIKey, bool) {
	c.mu.RLock()
	e, ok := c.m[hash]
	c.mu.RUnlock()
	return e.key, ok && e.version == version
}

// put keeps k, read from the database after the version was seen at version.
func (c *keyCache) put(hash [sha256.Size]byte, k model.APIKey, version uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= keyCacheMax {
		c.m = make(map[[sha256.Size]byte]cachedKey)
	}
	c.m[hash] = cachedKey{k, version}
}

// touched notes the last use just recorded, so a kept key is not recorded
// again within the minute.
func (c *keyCache) touched(hash [sha256.Size]byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[hash]; ok {
		e.key.LastUsedAt = &at
		c.m[hash] = e
	}
}
