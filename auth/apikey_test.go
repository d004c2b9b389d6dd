package auth_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

// countingStore is the real database, counting look-ups.
type countingStore struct {
	*db.DB
	lookups, touches atomic.Int64
}

func (c *countingStore) AuthKeyByHash(ctx context.Context, h []byte) (model.APIKey, error) {
	c.lookups.Add(1)
	return c.DB.AuthKeyByHash(ctx, h)
}

func (c *countingStore) TouchAPIKey(ctx context.Context, id string, t time.Time) error {
	c.touches.Add(1)
	return c.DB.TouchAPIKey(ctx, id, t)
}

func newKeys(t *testing.T) (*auth.Keys, *countingStore, model.Project) {
	t.Helper()
	d := testenv.NewDB(t)
	p, err := d.CreateProject(context.Background(), model.Project{Name: "Docs", Repository: "/tmp/docs"})
	if err != nil {
		t.Fatal(err)
	}
	store := &countingStore{DB: d}
	return auth.NewKeys(store), store, p
}

func TestIssuedKeyShape(t *testing.T) {
	keys, _, p := newKeys(t)
	plain, rec, err := keys.Issue(context.Background(), p.ID, "ci", model.ScopeWrite, "90d")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, "folio_") || len(plain) != 42 {
		t.Fatalf("key %q: want folio_ and 36 characters", plain)
	}
	if !auth.WellFormed(plain) {
		t.Fatalf("issued key %q is not well formed", plain)
	}
	if rec.LastFour != plain[len(plain)-4:] {
		t.Errorf("last four %q, want %q", rec.LastFour, plain[len(plain)-4:])
	}
	if !bytes.Equal(rec.Hash, auth.HashKey(plain)) {
		t.Error("stored hash is not the key's SHA-256")
	}
	if rec.ExpiresAt == nil || rec.ExpiresAt.Sub(rec.CreatedAt) < 89*24*time.Hour {
		t.Errorf("expiry %v, want 90 days after %v", rec.ExpiresAt, rec.CreatedAt)
	}
	other, _, _ := keys.Issue(context.Background(), p.ID, "ci", model.ScopeWrite, "never")
	if other == plain {
		t.Fatal("two issued keys are equal")
	}
}

func TestIssueRefusesBadOptions(t *testing.T) {
	keys, _, p := newKeys(t)
	for _, c := range []struct{ scope, expiry string }{{"admin", "90d"}, {"read", "1y"}, {"", "never"}} {
		if _, _, err := keys.Issue(context.Background(), p.ID, "x", c.scope, c.expiry); !errors.Is(err, model.ErrKeyOptions) {
			t.Errorf("Issue(scope %q, expiry %q) = %v, want ErrKeyOptions", c.scope, c.expiry, err)
		}
	}
}

// A key's name is the same rule through every door that issues one: the
// dashboard and the CLI both call Issue.
func TestIssueKeyName(t *testing.T) {
	cases := []struct {
		name, given, kept string // kept "" means refused
	}{
		{"a name", "ci", "ci"},
		{"trimmed of spaces", "  deploy bot\t", "deploy bot"},
		{"100 bytes", strings.Repeat("k", 100), strings.Repeat("k", 100)},
		{"empty", "", ""},
		{"only spaces", " \t ", ""},
		{"101 bytes", strings.Repeat("k", 101), ""},
		{"101 bytes once trimmed", " " + strings.Repeat("k", 101) + " ", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keys, store, p := newKeys(t)
			_, rec, err := keys.Issue(context.Background(), p.ID, tc.given, model.ScopeRead, "never")
			if tc.kept != "" {
				if err != nil || rec.Name != tc.kept {
					t.Fatalf("Issue(name %q) = %q, %v; want a key named %q", tc.given, rec.Name, err, tc.kept)
				}
				return
			}
			if !errors.Is(err, model.ErrKeyName) || !strings.Contains(err.Error(), auth.KeyNameRule) {
				t.Fatalf("Issue(name %q) = %v, want ErrKeyName saying %q", tc.given, err, auth.KeyNameRule)
			}
			if stored, err := store.APIKeysForProject(context.Background(), p.ID); err != nil || len(stored) != 0 {
				t.Fatalf("a refused name stored %v, %v", stored, err)
			}
		})
	}
}

func TestDatabaseHoldsNoKeyInClear(t *testing.T) {
	keys, store, p := newKeys(t)
	plain, _, err := keys.Issue(context.Background(), p.ID, "ci", model.ScopeRead, "never")
	if err != nil {
		t.Fatal(err)
	}
	store.DB.Close() // checkpoint the WAL into the file
	raw, err := os.ReadFile(store.DB.Path())
	if err != nil {
		t.Fatal(err)
	}
	secret := plain[len("folio_") : len(plain)-4] // all but what is shown anyway
	if bytes.Contains(raw, []byte(secret)) {
		t.Fatal("the database file contains the key in the clear")
	}
}

func TestChecksumRefusedWithoutLookup(t *testing.T) {
	keys, store, p := newKeys(t)
	plain, _, _ := keys.Issue(context.Background(), p.ID, "ci", model.ScopeRead, "never")
	for i := len("folio_"); i < len(plain); i++ {
		c := byte('A')
		if plain[i] == 'A' {
			c = 'B'
		}
		typo := plain[:i] + string(c) + plain[i+1:]
		if _, err := keys.Authenticate(context.Background(), "Bearer "+typo); !errors.Is(err, model.ErrMalformed) {
			t.Fatalf("key with position %d changed: err %v, want ErrMalformed", i, err)
		}
	}
	if n := store.lookups.Load(); n != 0 {
		t.Fatalf("%d database look-ups for mistyped keys, want 0", n)
	}
}

func TestAuthenticate(t *testing.T) {
	keys, store, p := newKeys(t)
	ctx := context.Background()
	plain, rec, _ := keys.Issue(ctx, p.ID, "ci", model.ScopeRead, "7d")

	k, err := keys.Authenticate(ctx, "Bearer "+plain)
	if err != nil || k.ID != rec.ID || !slices.Equal(k.Projects, []string{p.ID}) || k.Scope != model.ScopeRead {
		t.Fatalf("Authenticate(valid) = %+v, %v", k, err)
	}
	if _, err := keys.Authenticate(ctx, "bearer "+plain); err != nil {
		t.Errorf("scheme is case-insensitive, got %v", err)
	}
	for header, want := range map[string]error{
		"":                   model.ErrNoKey,
		"Basic " + plain:     model.ErrMalformed,
		"Bearer":             model.ErrMalformed,
		"Bearer folio_short": model.ErrMalformed,
		"Bearer " + strings.ToUpper(plain[:6]) + plain[6:]: model.ErrMalformed,
	} {
		if _, err := keys.Authenticate(ctx, header); !errors.Is(err, want) {
			t.Errorf("Authenticate(%q) = %v, want %v", header, err, want)
		}
	}

	// A well-formed key that was never issued.
	unknown := wellFormedUnissued(t)
	if _, err := keys.Authenticate(ctx, "Bearer "+unknown); !errors.Is(err, model.ErrUnknownKey) {
		t.Errorf("unissued key: %v, want ErrUnknownKey", err)
	}

	// Expired: move the clock past the expiry.
	keys.Now = func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
	if _, err := keys.Authenticate(ctx, "Bearer "+plain); !errors.Is(err, model.ErrUnknownKey) {
		t.Errorf("expired key: %v, want ErrUnknownKey", err)
	}
	keys.Now = time.Now

	// Revoked: refused at once.
	if err := store.DB.RevokeAPIKey(ctx, p.ID, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Authenticate(ctx, "Bearer "+plain); !errors.Is(err, model.ErrUnknownKey) {
		t.Errorf("revoked key: %v, want ErrUnknownKey", err)
	}
}

func TestLastUsedIsNotAWritePerRequest(t *testing.T) {
	keys, store, p := newKeys(t)
	ctx := context.Background()
	plain, rec, _ := keys.Issue(ctx, p.ID, "ci", model.ScopeRead, "never")
	for range 50 {
		if _, err := keys.Authenticate(ctx, "Bearer "+plain); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.touches.Load(); n != 1 {
		t.Fatalf("%d last-used writes for 50 requests within a minute, want 1", n)
	}
	got, _ := store.DB.APIKeyByHash(ctx, rec.Hash)
	if got.LastUsedAt == nil {
		t.Fatal("last used was not recorded")
	}
	keys.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	keys.Authenticate(ctx, "Bearer "+plain)
	if n := store.touches.Load(); n != 2 {
		t.Fatalf("%d last-used writes after a minute passed, want 2", n)
	}
}

// wellFormedUnissued issues a key in a throwaway database: well formed,
// valid checksum, unknown to the database under test.
func wellFormedUnissued(t *testing.T) string {
	keys, _, p := newKeys(t)
	plain, _, err := keys.Issue(context.Background(), p.ID, "elsewhere", model.ScopeRead, "never")
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// twoHandles opens one database file twice, as a server and the folio CLI
// in another process do, with a project created through the second.
func twoHandles(t *testing.T) (server, cli *db.DB, p model.Project) {
	t.Helper()
	server = testenv.NewDB(t)
	cli, err := db.Open(context.Background(), server.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	p, err = cli.CreateProject(context.Background(), model.Project{Name: "Docs", Repository: "/tmp/docs"})
	if err != nil {
		t.Fatal(err)
	}
	return server, cli, p
}

// A revocation written through another handle on the same file (as the
// folio CLI does from its own process) is seen on the very next request by
// every reader connection of a running server, although each keeps its
// prepared statements between requests.
func TestRevocationFromAnotherHandleSeenAtOnce(t *testing.T) {
	ctx := context.Background()
	server, cli, p := twoHandles(t)
	plain, rec, err := auth.NewKeys(cli).Issue(ctx, p.ID, "ci", model.ScopeRead, "never")
	if err != nil {
		t.Fatal(err)
	}
	keys := auth.NewKeys(server)
	// Many at once, so every reader connection of the pool has prepared
	// and kept the look-up.
	burst := func() (ok, refused int) {
		const n = 32
		errs := make(chan error, n)
		for range n {
			go func() {
				_, err := keys.Authenticate(ctx, "Bearer "+plain)
				errs <- err
			}()
		}
		for range n {
			switch err := <-errs; {
			case err == nil:
				ok++
			case errors.Is(err, model.ErrUnknownKey):
				refused++
			default:
				t.Fatal(err)
			}
		}
		return ok, refused
	}
	if ok, _ := burst(); ok != 32 {
		t.Fatalf("before revocation %d of 32 requests authenticated", ok)
	}
	if err := cli.RevokeAPIKey(ctx, p.ID, rec.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := burst(); ok != 0 {
		t.Fatalf("after revocation by another handle %d of 32 requests still authenticated", ok)
	}
}

// A key is read from the database once, then kept, while no key anywhere
// is revoked.
func TestKeptKeySavesTheRead(t *testing.T) {
	keys, store, p := newKeys(t)
	ctx := context.Background()
	plain, _, _ := keys.Issue(ctx, p.ID, "ci", model.ScopeRead, "never")
	_, other, _ := keys.Issue(ctx, p.ID, "other", model.ScopeRead, "never")
	for range 50 {
		if _, err := keys.Authenticate(ctx, "Bearer "+plain); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.lookups.Load(); n != 1 {
		t.Fatalf("%d look-ups for 50 requests with one key, want 1", n)
	}
	// Revoking any key reads every key again: the version does not say which.
	if err := store.RevokeAPIKey(ctx, p.ID, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Authenticate(ctx, "Bearer "+plain); err != nil {
		t.Fatal(err)
	}
	if n := store.lookups.Load(); n != 2 {
		t.Fatalf("%d look-ups after a revocation, want 2", n)
	}
	// Unknown keys are never kept.
	unknown := wellFormedUnissued(t)
	for range 3 {
		keys.Authenticate(ctx, "Bearer "+unknown)
	}
	if n := store.lookups.Load(); n != 5 {
		t.Fatalf("%d look-ups after three unknown keys, want 5", n)
	}
}

// While requests authenticate without pause on every core, a revocation
// through another handle is refused by every request that starts after it
// returns: a kept key never outlives its revocation.
func TestNoRequestAfterARevocationAuthenticates(t *testing.T) {
	ctx := context.Background()
	server, cli, p := twoHandles(t)
	keys := auth.NewKeys(server)
	for round := range 20 {
		plain, rec, err := auth.NewKeys(cli).Issue(ctx, p.ID, "ci", model.ScopeRead, "never")
		if err != nil {
			t.Fatal(err)
		}
		var revoked, stop atomic.Bool
		var before, late atomic.Int64
		done := make(chan struct{})
		const workers = 8
		for range workers {
			go func() {
				defer func() { done <- struct{}{} }()
				for !stop.Load() {
					after := revoked.Load()
					_, err := keys.Authenticate(ctx, "Bearer "+plain)
					switch {
					case err == nil && after:
						late.Add(1)
					case err == nil:
						before.Add(1)
					case !errors.Is(err, model.ErrUnknownKey):
						t.Error(err)
						return
					}
				}
			}()
		}
		for before.Load() < 100 { // the key is kept by now
			time.Sleep(time.Millisecond)
		}
		if err := cli.RevokeAPIKey(ctx, p.ID, rec.ID); err != nil {
			t.Fatal(err)
		}
		revoked.Store(true)
		time.Sleep(20 * time.Millisecond)
		stop.Store(true)
		for range workers {
			<-done
		}
		if n := late.Load(); n > 0 {
			t.Fatalf("round %d: %d requests begun after the revocation returned were authenticated", round, n)
		}
	}
}
