package auth

import (
	"context"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// keySeeds are keys in the shape Issue hands out, and near misses.
var keySeeds = []string{
	"folio_0123456789ABCDEFGHIJabcdefghij" + checksum("folio_0123456789ABCDEFGHIJabcdefghij"),
	"folio_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" + checksum("folio_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"),
	"folio_000000000000000000000000000000000000",
	"folio_", "Folio_0123456789ABCDEFGHIJabcdefghij000000", "sk-0123456789",
	"folio_0123456789ABCDEFGHIJabcdefgh-_" + checksum("folio_0123456789ABCDEFGHIJabcdefgh-_"),
}

// FuzzKeyChecksum: a key built from any 30 base62 characters is well formed
// and its last six characters are the CRC-32 of the rest in base62; any
// single-byte change of it is refused; and whatever WellFormed accepts has
// that shape.
func FuzzKeyChecksum(f *testing.F) {
	for i, s := range keySeeds {
		f.Add(s, uint(i*7), byte('A'+i))
	}
	f.Fuzz(func(t *testing.T, s string, at uint, b byte) {
		if WellFormed(s) {
			checkKeyShape(t, s)
		}
		// Format a key from the input's bytes, then parse it back.
		var body strings.Builder
		body.WriteString(KeyPrefix)
		for i := range randomLen {
			c := byte(i)
			if i < len(s) {
				c = s[i]
			}
			body.WriteByte(base62[int(c)%len(base62)])
		}
		key := body.String() + checksum(body.String())
		if !WellFormed(key) {
			t.Fatalf("formatted key %q is refused", key)
		}
		checkKeyShape(t, key)
		if got := key[:keyLen-checksumLen]; got != body.String() {
			t.Fatalf("key %q carries body %q, want %q", key, got, body.String())
		}
		// Any one byte changed: refused.
		i := int(at % uint(len(key)))
		if key[i] == b {
			return
		}
		changed := key[:i] + string([]byte{b}) + key[i+1:]
		if WellFormed(changed) {
			t.Fatalf("key %q with byte %d changed to %q is still well formed: %q", key, i, b, changed)
		}
	})
}

// checkKeyShape asserts key is folio_, 30 base62 characters and their
// CRC-32, decoded here without checksum's help.
func checkKeyShape(t *testing.T, key string) {
	t.Helper()
	if len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix) {
		t.Fatalf("well-formed key %q has the wrong length or prefix", key)
	}
	var n uint64
	for _, c := range []byte(key[keyLen-checksumLen:]) {
		d := strings.IndexByte(base62, c)
		if d < 0 {
			t.Fatalf("well-formed key %q has a checksum outside base62", key)
		}
		n = n*62 + uint64(d)
	}
	body := key[:keyLen-checksumLen]
	if strings.Trim(body[len(KeyPrefix):], base62) != "" {
		t.Fatalf("well-formed key %q has a body outside base62", key)
	}
	if want := uint64(crc32.ChecksumIEEE([]byte(body))); n != want {
		t.Fatalf("key %q: checksum reads %d, CRC-32 of the body is %d", key, n, want)
	}
}

// FuzzAuthenticate parses Authorization headers against a real database
// holding one key: only that key, as a Bearer token in any case and
// spacing, authenticates; everything else is one of the three refusals.
func FuzzAuthenticate(f *testing.F) {
	ctx := context.Background()
	d := testenv.NewDB(f)
	p, err := d.CreateProject(ctx, model.Project{Name: "Docs", Repository: "/tmp/docs"})
	if err != nil {
		f.Fatal(err)
	}
	keys := NewKeys(d)
	plain, rec, err := keys.Issue(ctx, p.ID, "fuzz", model.ScopeRead, "never")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range append(keySeeds, plain) {
		f.Add("Bearer " + s)
		f.Add("bearer  " + s + " ")
		f.Add("Basic " + s)
		f.Add(s)
	}
	f.Add("")
	f.Add("Bearer")
	f.Fuzz(func(t *testing.T, header string) {
		k, err := keys.Authenticate(ctx, header)
		scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
		token = strings.TrimSpace(token)
		switch {
		case err == nil:
			if !strings.EqualFold(scheme, "Bearer") || token != plain || k.ID != rec.ID {
				t.Fatalf("%q authenticated as key %q", header, k.ID)
			}
		case errors.Is(err, model.ErrNoKey):
			if header != "" {
				t.Fatalf("%q: no key, but a header was given", header)
			}
		case errors.Is(err, model.ErrMalformed):
			if strings.EqualFold(scheme, "Bearer") && WellFormed(token) {
				t.Fatalf("%q: malformed, but it is a well-formed Bearer key", header)
			}
		case errors.Is(err, model.ErrUnknownKey):
			if token == plain && strings.EqualFold(scheme, "Bearer") {
				t.Fatalf("%q: the issued key is unknown", header)
			}
			if !WellFormed(token) {
				t.Fatalf("%q: looked up although malformed", header)
			}
		default:
			t.Fatalf("%q: %v", header, err)
		}
	})
}
