package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/internal/testenv"
)

// TestBackupWhileWritingRestoresEverythingBeforeIt takes a backup while 10
// goroutines ingest events and create jobs that a worker runs, restores it
// into a new data directory with an empty queue, and starts serve on it:
// the key works, every batch and job acknowledged before the backup began
// is there and nothing half-written is, finished jobs read as before, and
// the jobs active at the backup run to the end instead of staying stuck.
func TestBackupWhileWritingRestoresEverythingBeforeIt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for the restored server's sweep to recover the runs the backup caught active")
	}
	model := testenv.NewModelServer(t, nil)
	te := newTestEnv(t)
	maps.Copy(te, testEnv{
		"FOLIO_MODEL_PROVIDER": "openai", "FOLIO_OPENAI_BASE_URL": model.URL, "FOLIO_OPENAI_API_KEY": model.APIKey,
		"FOLIO_MODEL": "test-model", "FOLIO_BASE_URL": "http://docs.example", "FOLIO_LOCAL_REPOS": t.TempDir(),
	})
	pid := te.must(t, "", "project", "create", "--name", "Docs", "--repo", newDocsRepo(t))
	key := te.must(t, "", "key", "create", "--project", pid)
	src := &metricsWorld{te: te, pid: pid, key: key}
	src.base, _ = startServe(t, te)

	// A job finished well before the backup.
	first := between(src.call(t, "POST", "/v2/agent/{p}/job", `{"prompt":"The first note."}`, 201), `"id":"`, `"`)
	waitFor(t, 60*time.Second, "the first job to complete", func() bool {
		return strings.Contains(src.call(t, "GET", "/v2/agent/{p}/job/"+first, "", 200), `"status":"completed"`)
	})

	const perBatch = 5
	var (
		mu      sync.Mutex
		batches = map[string]time.Time{} // path of each acknowledged batch → when
		created = map[string]time.Time{} // job id → when its create was answered
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	ua := "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	at := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	for g := range 5 {
		wg.Add(2)
		go func() { // events: one path per batch, a visitor per event
			defer wg.Done()
			for b := 0; ; b++ {
				select {
				case <-stop:
					return
				default:
				}
				path := fmt.Sprintf("/g%d/b%d", g, b)
				var evs []string
				for i := range perBatch {
					evs = append(evs, fmt.Sprintf(`{"path":%q,"timestamp":%q,"userAgent":%q,"ip":"192.0.2.1","visitorId":"v-%d-%d-%d"}`, path, at, ua, g, b, i))
				}
				src.call(t, "POST", "/v1/analytics/{p}/events", `{"events":[`+strings.Join(evs, ",")+`]}`, 200)
				mu.Lock()
				batches[path] = time.Now()
				mu.Unlock()
			}
		}()
		go func() { // jobs: a few each, so the rate limit never refuses one
			defer wg.Done()
			for i := range 3 {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(50+100*g) * time.Millisecond):
				}
				id := between(src.call(t, "POST", "/v2/agent/{p}/job", fmt.Sprintf(`{"prompt":"Note %d from writer %d."}`, i, g), 201), `"id":"`, `"`)
				mu.Lock()
				created[id] = time.Now()
				mu.Unlock()
			}
		}()
	}
	// The backup begins once a job of four writers has been created (and
	// batches with them), and the writers stop once a batch has been
	// acknowledged after it ended: the writes straddle it.
	waitFor(t, 30*time.Second, "jobs and batches before the backup", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(created) >= 4 && len(batches) > 0
	})
	before := listJobs(t, src)
	began := time.Now()
	file := filepath.Join(t.TempDir(), "folio-backup.db")
	out := te.must(t, "", "backup", "--to", file)
	after := listJobs(t, src)
	ended := time.Now()
	waitFor(t, 30*time.Second, "a batch after the backup", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ack := range batches {
			if ack.After(ended) {
				return true
			}
		}
		return false
	})
	close(stop)
	wg.Wait()

	// What it printed: the file, its size, the main tables' rows.
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, fmt.Sprintf("wrote %s: %d bytes", file, st.Size())) {
		t.Fatalf("backup printed %q, want the file and its size %d", out, st.Size())
	}
	rows := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(\w+)\s+(\d+)\s*$`).FindAllStringSubmatch(out, -1) {
		rows[m[1]], _ = strconv.Atoi(m[2])
	}
	if code, _, errs := te.folio(t, "", "backup", "--to", file); code != 1 || !strings.Contains(errs, "exists already") {
		t.Fatalf("a backup over an existing file: exit %d, %q", code, errs)
	}

	// Restore: a new data directory holding the file, and a queue that lost
	// everything (another Redis database).
	te2 := maps.Clone(te)
	te2["FOLIO_DATA_DIR"] = filepath.Join(t.TempDir(), "restored")
	te2["FOLIO_REDIS_URL"] = testRedis.DB(t).URL
	if err := os.MkdirAll(te2["FOLIO_DATA_DIR"], 0o750); err != nil {
		t.Fatal(err)
	}
	copyFile(t, file, filepath.Join(te2["FOLIO_DATA_DIR"], "folio.db"))
	dst := &metricsWorld{te: te2, pid: pid, key: key}
	dst.base, _ = startServe(t, te2)

	// Views: whole batches only, every one acknowledged before the backup.
	var views struct {
		Totals struct{ Human, Total int }
		Views  []struct {
			Path         string
			Human, Total int
		}
		HasMore bool
	}
	// One row a batch: page through them all.
	for offset := 0; ; offset += 250 {
		var page struct {
			Totals struct{ Human, Total int }
			Views  []struct {
				Path         string
				Human, Total int
			}
			HasMore bool
		}
		json.Unmarshal([]byte(dst.call(t, "GET", fmt.Sprintf("/v1/analytics/{p}/views?limit=250&offset=%d", offset), "", 200)), &page)
		views.Totals = page.Totals
		for _, v := range page.Views {
			views.Views = append(views.Views, struct {
				Path         string
				Human, Total int
			}{v.Path, v.Human, v.Total})
		}
		if !page.HasMore {
			break
		}
	}
	present := map[string]bool{}
	for _, v := range views.Views {
		if _, ok := batches[v.Path]; !ok || v.Human != perBatch || v.Total != perBatch {
			t.Errorf("restored views of %s: %d human, %d total; want a whole acknowledged batch of %d", v.Path, v.Human, v.Total, perBatch)
		}
		present[v.Path] = true
	}
	n := 0
	for path, ack := range batches {
		if ack.Before(began) {
			n++
			if !present[path] {
				t.Errorf("batch %s, acknowledged before the backup began, is missing from the copy", path)
			}
		}
	}
	if n == 0 || len(present) == len(batches) {
		t.Errorf("%d batches before the backup, %d in the copy, %d in all: the writes did not straddle the backup", n, len(present), len(batches))
	}
	if views.Totals.Total != perBatch*len(present) || rows["analytics_views"] != views.Totals.Total {
		t.Errorf("restored totals %d, backup said %d analytics_views; want %d", views.Totals.Total, rows["analytics_views"], perBatch*len(present))
	}
	var visitors struct{ Totals struct{ Total int } }
	json.Unmarshal([]byte(dst.call(t, "GET", "/v1/analytics/{p}/visitors?limit=250", "", 200)), &visitors)
	if visitors.Totals.Total != perBatch*len(present) {
		t.Errorf("restored visitors %d, want %d", visitors.Totals.Total, perBatch*len(present))
	}
	// The source has them all, and the copy's rows are the source's.
	var srcViews struct{ Totals struct{ Total int } }
	json.Unmarshal([]byte(src.call(t, "GET", "/v1/analytics/{p}/views?limit=250", "", 200)), &srcViews)
	if srcViews.Totals.Total != perBatch*len(batches) {
		t.Errorf("source views %d, want %d", srcViews.Totals.Total, perBatch*len(batches))
	}

	// Jobs: read right after the restore, before its worker touched them.
	copied := listJobs(t, dst)
	if len(copied) != rows["jobs"] {
		t.Errorf("restored server lists %d jobs, the backup said %d", len(copied), rows["jobs"])
	}
	for id, ack := range created {
		if _, ok := copied[id]; !ok && ack.Before(began) {
			t.Errorf("job %s, created before the backup began, is missing from the copy", id)
		}
	}
	var active []string
	for id, j := range copied {
		b, a := before[id], after[id]
		switch {
		case a == nil:
			t.Errorf("the copy has job %s the source never listed", id)
		case j["status"] == "completed" && !reflect.DeepEqual(j, a):
			t.Errorf("finished job %s reads\n%v\nin the copy,\n%v\nin the source", id, j, a)
		case b != nil && b["status"] == "completed" && !reflect.DeepEqual(j, b):
			t.Errorf("job %s, finished before the backup, reads\n%v\nin the copy,\n%v\nbefore", id, j, b)
		case j["createdAt"] != a["createdAt"] || !reflect.DeepEqual(j["source"], a["source"]) || j["model"] != a["model"]:
			t.Errorf("job %s reads %v in the copy, %v in the source", id, j, a)
		case j["status"] == "active":
			active = append(active, id)
		}
	}
	if copied[first] == nil || copied[first]["status"] != "completed" {
		t.Errorf("the first job in the copy: %v", copied[first])
	}
	t.Logf("%d batches before the backup, %d in the copy, %d in all; %d jobs in the copy, %d of them active", n, len(present), len(batches), len(copied), len(active))
	// Its run was in the old queue: the restored server's sweep runs it again.
	for _, id := range active {
		waitFor(t, 150*time.Second, "job "+id+" to leave active after the restore", func() bool {
			return !strings.Contains(dst.call(t, "GET", "/v2/agent/{p}/job/"+id, "", 200), `"status":"active"`)
		})
		if j := dst.call(t, "GET", "/v2/agent/{p}/job/"+id, "", 200); !strings.Contains(j, `"status":"completed"`) {
			t.Errorf("job %s active at the backup ended %s after the restore", id, j)
		}
	}
}

// listJobs reads every job of the project, by id.
func listJobs(t *testing.T, w *metricsWorld) map[string]map[string]any {
	t.Helper()
	var page struct {
		Jobs    []map[string]any
		HasMore bool
	}
	if err := json.Unmarshal([]byte(w.call(t, "GET", "/v2/agent/{p}/jobs?limit=100", "", 200)), &page); err != nil || page.HasMore {
		t.Fatalf("jobs list: %v, hasMore %v", err, page.HasMore)
	}
	out := map[string]map[string]any{}
	for _, j := range page.Jobs {
		out[j["id"].(string)] = j
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBackupCarriesTheIndexSnapshots: a backup writes the analytics index
// snapshot beside the copy, and a server restored with it starts from it,
// reading no view from the database, with the source's answers; restored
// without it, the server reads every view and says why.
func TestBackupCarriesTheIndexSnapshots(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	project, key := newAnalyticsProject(t, te)
	te.must(t, "", "analytics", "generate", "--project", project, "--views", "3000", "--days", "5")
	snaps, _ := filepath.Glob(filepath.Join(te["FOLIO_DATA_DIR"], "folio.db.analytics-*.idx"))
	if len(snaps) != 1 {
		t.Fatalf("generate left %v beside the database, want one index snapshot", snaps)
	}
	suffix := strings.TrimPrefix(filepath.Base(snaps[0]), "folio.db")

	file := filepath.Join(t.TempDir(), "folio-backup.db")
	out := te.must(t, "", "backup", "--to", file)
	st, err := os.Stat(file + suffix)
	if err != nil {
		t.Fatalf("no snapshot beside the backup: %v\n%s", err, out)
	}
	if src, _ := os.Stat(snaps[0]); src == nil || src.Size() != st.Size() || !strings.Contains(out, fmt.Sprintf("wrote %s: %d bytes (analytics index snapshot)", file+suffix, st.Size())) {
		t.Fatalf("backup printed %q; the snapshot copy is %d bytes, want the source's and that line", out, st.Size())
	}

	visitors := func(te testEnv, wantLog string) string {
		t.Helper()
		te["FOLIO_ADDR"], te["FOLIO_WORKER"] = freeAddr(t), "false"
		p := startFolio(t, te, "serve")
		p.waitLog(t, serving.String(), 20*time.Second)
		p.waitLog(t, wantLog, 30*time.Second)
		var v json.RawMessage
		if code := apiCall(t, "GET", "http://"+te["FOLIO_ADDR"]+"/v1/analytics/"+project+"/visitors?limit=250", key, nil, &v); code != 200 {
			t.Fatalf("visitors export: %d", code)
		}
		return string(v)
	}
	restored := func(withSnapshot bool) testEnv {
		t.Helper()
		r := maps.Clone(te)
		r["FOLIO_DATA_DIR"] = t.TempDir()
		copyFile(t, file, filepath.Join(r["FOLIO_DATA_DIR"], "folio.db"))
		if withSnapshot {
			copyFile(t, file+suffix, filepath.Join(r["FOLIO_DATA_DIR"], "folio.db"+suffix))
		}
		return r
	}
	want := visitors(maps.Clone(te), `analytics index loaded" .*views_read=0 .*snapshot=used`)
	if got := visitors(restored(true), `analytics index loaded" .*views_read=0 .*snapshot=used`); got != want {
		t.Errorf("restored with its snapshot, visitors read\n%s\nthe source's read\n%s", got, want)
	}
	if got := visitors(restored(false), `analytics index loaded" .*views_read=3000 .*snapshot="none on disk"`); got != want {
		t.Errorf("restored without its snapshot, visitors read\n%s\nthe source's read\n%s", got, want)
	}
}
