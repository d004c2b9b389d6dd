// Package testenv builds the real world Folio's tests run against: a Redis
// server of their own on a free port, one of its databases per test, and a
// fresh SQLite file per test.
package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/db"
)

// Redis is a redis-server process started for one test package.
type Redis struct {
	URL  string // database 0
	Addr string
	cmd  *exec.Cmd
	dir  string
	free chan int // the databases DB may lend, least recently returned first
}

// redisDatabases is how many numbered databases the server has: database 0
// for Client, URL and Flush, the others lent by DB. More than a test binary
// ever holds at once, so that a database returned is lent again only long
// after.
const redisDatabases = 256

// StartRedis starts redis-server on a free loopback port with no
// persistence. Call it from TestMain and Stop it after m.Run.
func StartRedis() (*Redis, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("testenv: redis-server is not installed (the test command installs it: go tool task test): %w", err)
	}
	dir, err := os.MkdirTemp("", "folio-redis-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	r := &Redis{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, free: make(chan int, redisDatabases-1)}
	r.URL = "redis://" + r.Addr + "/0"
	for i := 1; i < redisDatabases; i++ {
		r.free <- i
	}
	// #nosec G204 -- redis-server from PATH, with the test's own arguments and no shell
	r.cmd = exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir,
		"--databases", strconv.Itoa(redisDatabases))
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("testenv: unable to start redis-server: %w", err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		r.Stop()
		return nil, fmt.Errorf("testenv: redis-server did not become ready on %s", r.Addr)
	}
	return r, nil
}

// Client returns a client of this server; the test closes it at cleanup.
func (r *Redis) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	t.Cleanup(func() { _ = c.Close() }) // the test is over; its connections go with the server
	return c
}

// RedisDB is one numbered database of a Redis server, lent to one test.
// Asynq keeps its queues and Folio its keys in the database its URL names,
// so tests that each hold one share the server and see nothing of each
// other's: they may run in parallel. (Pub/sub channels are the server's,
// not a database's; Folio's announce job ids, which tests do not share.)
type RedisDB struct {
	URL   string // redis://127.0.0.1:port/N, for FOLIO_REDIS_URL
	Addr  string
	Index int
}

// DB lends the test an empty database of the server until it ends.
func (r *Redis) DB(t testing.TB) *RedisDB {
	t.Helper()
	var n int
	select {
	case n = <-r.free:
	case <-time.After(time.Minute):
		t.Fatalf("no Redis database was free within a minute: %d held", redisDatabases-1)
	}
	t.Cleanup(func() { r.free <- n })
	d := &RedisDB{URL: fmt.Sprintf("redis://%s/%d", r.Addr, n), Addr: r.Addr, Index: n}
	c := redis.NewClient(&redis.Options{Addr: r.Addr, DB: n})
	defer c.Close()
	if err := c.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("empty Redis database %d: %v", n, err)
	}
	return d
}

// Client returns a client of this database; the test closes it at cleanup.
func (d *RedisDB) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: d.Addr, DB: d.Index})
	t.Cleanup(func() { _ = c.Close() }) // the test is over; its connections go with the server
	return c
}

// Flush empties the server between tests.
func (r *Redis) Flush(t testing.TB) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	if err := c.FlushAll(context.Background()).Err(); err != nil {
		t.Fatalf("flush redis: %v", err)
	}
}

// Stop ends the server and removes its directory.
func (r *Redis) Stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill() // it may have exited already, which is as good
		_ = r.cmd.Wait()         // reaps it; its exit status after a kill says nothing
	}
	_ = os.RemoveAll(r.dir) // a temporary folder; the system's cleaning takes what is left
}

// NewDB opens a migrated SQLite file in the test's temporary directory.
func NewDB(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "folio.db"))
	if err != nil {
		t.Fatalf("open db: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() }) // the test is over and its folder is removed next
	if _, err := d.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return d
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
