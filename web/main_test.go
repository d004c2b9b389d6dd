package main

import (
	"fmt"
	"os"
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
