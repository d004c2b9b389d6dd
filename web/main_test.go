package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
)

// testRedis is this package's own redis-server.
var testRedis *testenv.Redis

func TestMain(m *testing.M) {
	// A test that needs folio in a process of its own runs this binary
	// again with FOLIO_TEST_RUN_MAIN=1: it is then the folio command.
	if os.Getenv("FOLIO_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	var err error
	testRedis, err = testenv.StartRedis()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	testRedis.Stop()
	os.Exit(code)
}

// testEnv is a set of environment variables for one in-process folio run,
// with its own data directory.
type testEnv map[string]string

func newTestEnv(t testing.TB) testEnv {
	t.Helper()
	return testEnv{
		"FOLIO_DATA_DIR":  filepath.Join(t.TempDir(), "data"),
		"FOLIO_REDIS_URL": testRedis.URL,
	}
}

// folio runs one command line in-process and returns its exit status,
// stdout and stderr.
func (te testEnv) folio(t testing.TB, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return te[k] }}
	code := run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

// must runs a command that has to succeed and returns its trimmed stdout.
func (te testEnv) must(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	code, out, errs := te.folio(t, stdin, args...)
	if code != 0 {
		t.Fatalf("folio %s: exit %d, stderr %s", strings.Join(args, " "), code, errs)
	}
	return strings.TrimSpace(out)
}
