package db

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/folio-docs/folio/model"
)

func openMigrated(t *testing.T, path string) *DB {
	t.Helper()
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return d
}

// Every handle on the file sees the same version, and a revocation through
// any of them moves it before returning.
func TestKeysVersionIsSharedAndMovedByRevocation(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "folio.db")
	server, cli := openMigrated(t, path), openMigrated(t, path)
	p, err := cli.CreateProject(ctx, Project{Name: "Docs", Repository: "acme/docs"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := cli.CreateAPIKey(ctx, APIKey{Projects: []string{p.ID}, Name: "ci", Hash: make([]byte, 32), LastFour: "abcd", Scope: ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	v0, ok := server.KeysVersion()
	if !ok {
		t.Fatal("no version to keep keys by on this platform")
	}
	if v, _ := cli.KeysVersion(); v != v0 {
		t.Fatalf("two handles read versions %d and %d", v0, v)
	}
	if err := cli.TouchAPIKey(ctx, k.ID, k.CreatedAt); err != nil {
		t.Fatal(err)
	}
	if v, _ := server.KeysVersion(); v != v0 {
		t.Fatal("recording a key's use moved the version; only what can end a key's validity should")
	}
	if err := cli.RevokeAPIKey(ctx, p.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if v, ok := server.KeysVersion(); !ok || v <= v0 {
		t.Fatalf("after a revocation the version is %d (ok %v), want even and above %d", v, ok, v0)
	}
	// Revoking a key that does not exist still says so.
	if err := cli.RevokeAPIKey(ctx, p.ID, "nope"); err != model.ErrNotFound {
		t.Fatalf("revoking an unknown key: %v, want model.ErrNotFound", err)
	}
}

// A process killed inside a revocation, after its commit, leaves the version
// odd: no process may keep keys until the next one opens the database, and
// then the revocation is what every process reads.
func TestKeysVersionAfterAWriterDiesMidChange(t *testing.T) {
	if path := os.Getenv("FOLIO_TEST_DIE_REVOKING"); path != "" {
		d, err := Open(context.Background(), path)
		if err != nil {
			os.Exit(2)
		}
		d.changeKeys(func() error {
			if _, err := d.w.ExecContext(context.Background(), `UPDATE api_keys SET revoked_at = 1`); err != nil {
				os.Exit(2)
			}
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		})
		os.Exit(2) // not reached
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "folio.db")
	server := openMigrated(t, path)
	p, err := server.CreateProject(ctx, Project{Name: "Docs", Repository: "acme/docs"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.CreateAPIKey(ctx, APIKey{Projects: []string{p.ID}, Name: "ci", Hash: make([]byte, 32), LastFour: "abcd", Scope: ScopeRead}); err != nil {
		t.Fatal(err)
	}
	v0, _ := server.KeysVersion()

	cmd := exec.Command(os.Args[0], "-test.run", "^TestKeysVersionAfterAWriterDiesMidChange$")
	cmd.Env = append(os.Environ(), "FOLIO_TEST_DIE_REVOKING="+path)
	err = cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the writer did not die by SIGKILL inside its change: %v", err)
	}
	if v, ok := server.KeysVersion(); ok {
		t.Fatalf("version %d reads as stable after a writer died inside its change (was %d)", v, v0)
	}
	k, err := server.AuthKeyByHash(ctx, make([]byte, 32))
	if err != nil || k.RevokedAt == nil {
		t.Fatalf("the dead writer's revocation is not in the database: %+v, %v", k, err)
	}
	openMigrated(t, path) // a process starting, as folio serve or the CLI does
	if v, ok := server.KeysVersion(); !ok || v <= v0 {
		t.Fatalf("after the next open the version is %d (ok %v), want even and above %d", v, ok, v0)
	}
}
