// Package auth issues and checks the credentials Folio accepts: API keys for
// programs and passwords for dashboard admins.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash/crc32"
	"math/big"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
)

// KeyPrefix starts every Folio API key, so secret scanners can find them.
const KeyPrefix = "folio_"

const (
	base62        = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randomLen     = 30 // 30 base62 characters carry 178 random bits
	checksumLen   = 6  // a CRC32 in base62, zero-padded
	keyLen        = len(KeyPrefix) + randomLen + checksumLen
	touchInterval = time.Minute
)

// KeyNameRule is what a key's name must be, in the words the dashboard and
// the CLI show when one is refused.
const KeyNameRule = "Name the key after what uses it, in up to 100 characters."

const keyNameMax = 100 // bytes

// keyName is name as a key keeps it, trimmed of spaces, or model.ErrKeyName.
func keyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > keyNameMax {
		return "", fmt.Errorf("%w: %s", model.ErrKeyName, KeyNameRule)
	}
	return name, nil
}

// Expiries a key may be given; 0 means never.
var Expiries = map[string]time.Duration{
	"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour, "60d": 60 * 24 * time.Hour,
	"90d": 90 * 24 * time.Hour, "never": 0,
}

// KeyStore is what keys need from storage.
type KeyStore interface {
	CreateAPIKey(ctx context.Context, k model.APIKey) (model.APIKey, error)
	AuthKeyByHash(ctx context.Context, hash []byte) (model.APIKey, error)
	TouchAPIKey(ctx context.Context, keyID string, t time.Time) error
	APIKeysForProject(ctx context.Context, projectID string) ([]model.APIKey, error)
	RevokeAPIKey(ctx context.Context, projectID, keyID string) error
	// KeysVersion says how long a key read now stays true: while it
	// reads the same v, and only if ok.
	KeysVersion() (v uint64, ok bool)
}

// Keys issues and authenticates API keys.
type Keys struct {
	Store KeyStore
	Now   func() time.Time
	cache keyCache
}

// NewKeys returns Keys over store using the wall clock.
func NewKeys(store KeyStore) *Keys { return &Keys{Store: store, Now: time.Now} }

// List is a project's keys, newest first, as stored: never the keys themselves.
func (ks *Keys) List(ctx context.Context, projectID string) ([]model.APIKey, error) {
	return ks.Store.APIKeysForProject(ctx, projectID)
}

// Revoke ends a project's key at once, in every process (the store moves
// the keys version); an unknown key is model.ErrNotFound.
func (ks *Keys) Revoke(ctx context.Context, projectID, keyID string) error {
	return ks.Store.RevokeAPIKey(ctx, projectID, keyID)
}

// Issue creates a key for a project and returns the key itself, which is
// never stored and so can be shown only now, and its stored record. A bad
// name is model.ErrKeyName; a bad scope or expiry, model.ErrKeyOptions.
func (ks *Keys) Issue(ctx context.Context, projectID, name, scope, expiry string) (string, model.APIKey, error) {
	name, err := keyName(name)
	if err != nil {
		return "", model.APIKey{}, err
	}
	if scope != model.ScopeRead && scope != model.ScopeIngest && scope != model.ScopeWrite {
		return "", model.APIKey{}, fmt.Errorf("%w: scope must be %q, %q or %q, not %q", model.ErrKeyOptions, model.ScopeRead, model.ScopeIngest, model.ScopeWrite, scope)
	}
	ttl, ok := Expiries[expiry]
	if !ok {
		return "", model.APIKey{}, fmt.Errorf("%w: expiry must be one of 7d, 30d, 60d, 90d or never, not %q", model.ErrKeyOptions, expiry)
	}
	plain := newKey()
	rec := model.APIKey{ProjectID: projectID, Name: name, Hash: HashKey(plain), LastFour: plain[len(plain)-4:], Scope: scope}
	if ttl > 0 {
		exp := ks.Now().UTC().Add(ttl).Truncate(time.Millisecond)
		rec.ExpiresAt = &exp
	}
	rec, err = ks.Store.CreateAPIKey(ctx, rec)
	if err != nil {
		return "", model.APIKey{}, err
	}
	return plain, rec, nil
}

// Authenticate turns an Authorization header into the key it names. A key
// whose checksum is wrong is refused without touching the database.
func (ks *Keys) Authenticate(ctx context.Context, authorization string) (model.APIKey, error) {
	scheme, token, found := strings.Cut(strings.TrimSpace(authorization), " ")
	if authorization == "" {
		return model.APIKey{}, model.ErrNoKey
	}
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return model.APIKey{}, model.ErrMalformed
	}
	token = strings.TrimSpace(token)
	if !WellFormed(token) {
		return model.APIKey{}, model.ErrMalformed
	}
	hash := sha256.Sum256([]byte(token))
	// A key kept from an earlier request saves the database read, but only
	// while no key has been revoked anywhere since it was read.
	version, keep := ks.Store.KeysVersion()
	k, kept := model.APIKey{}, false
	if keep {
		k, kept = ks.cache.get(hash, version)
	}
	if !kept {
		var err error
		k, err = ks.Store.AuthKeyByHash(ctx, hash[:])
		if errors.Is(err, model.ErrNotFound) {
			return model.APIKey{}, model.ErrUnknownKey
		}
		if err != nil {
			return model.APIKey{}, err
		}
		if keep {
			ks.cache.put(hash, k, version)
		}
	}
	now := ks.Now()
	if subtle.ConstantTimeCompare(k.Hash, hash[:]) != 1 || !k.Active(now) {
		return model.APIKey{}, model.ErrUnknownKey
	}
	// Record use at most once a minute a key, so reads stay reads.
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= touchInterval {
		if err := ks.Store.TouchAPIKey(ctx, k.ID, now); err != nil {
			return model.APIKey{}, err
		}
		ks.cache.touched(hash, now)
	}
	return k, nil
}

// isBase62 tells the bytes of base62 apart, for checking a key per request.
var isBase62 = func() (t [256]bool) {
	for i := 0; i < len(base62); i++ {
		t[base62[i]] = true
	}
	return t
}()

// HashKey is the stored form of a key.
func HashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// WellFormed reports whether s has a Folio key's shape and a valid checksum.
func WellFormed(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	body := s[:keyLen-checksumLen]
	for i := len(KeyPrefix); i < len(body); i++ {
		if !isBase62[body[i]] {
			return false
		}
	}
	return subtle.ConstantTimeCompare([]byte(checksum(body)), []byte(s[keyLen-checksumLen:])) == 1
}

func newKey() string {
	var b strings.Builder
	b.WriteString(KeyPrefix)
	limit := big.NewInt(int64(len(base62)))
	for range randomLen {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		b.WriteByte(base62[n.Int64()])
	}
	body := b.String()
	return body + checksum(body)
}

func checksum(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}
