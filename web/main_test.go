package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
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
	flag.Parse()
	parallelByDefault()
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

// waitingParallel is how many tests run at once unless -parallel says:
// these tests mostly wait (on processes, browsers, Asynq's leases and
// retries), so more of them than GOMAXPROCS, go test's default, keep the
// machine busy. Under -race their Go code costs several times the CPU, and
// fewer at once keep the browser tests' steps within their time limits on
// a busy machine. Each holds its own Redis database and SQLite file; the
// few that read process-wide state (serve's metrics in this process) do
// not call t.Parallel.
func waitingParallel() int {
	if raceDetector {
		return 4
	}
	return 8
}

func parallelByDefault() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if n := waitingParallel(); !set && runtime.GOMAXPROCS(0) < n {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
