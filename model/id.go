package model

import (
	"crypto/rand"
	"encoding/base32"
)

// NewID returns an opaque, unguessable identifier, as every id of the
// domain is (jobs, projects, keys, users, runs' leases): 128 random bits
// in lower-case base32 (Crockford's alphabet, no i l o u), 26 characters.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	return idEncoding.EncodeToString(b[:])
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)
