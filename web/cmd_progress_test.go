package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Both long analytics commands draw the same bar on a terminal (run here
// under script(1), a real pseudo-terminal) and end with one summary line
// giving the rate; without a terminal they print the summary alone. Each
// then writes the index snapshot serve starts from, with a bar and a
// summary of its own: the views it read from the database.
func TestAnalyticsCommandsShowProgress(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script (util-linux) is needed to run folio on a terminal: %v", err)
	}
	te := newTestEnv(t)
	te.must(t, "s3cret-passw0rd\n", "user", "create", "--email", "ada@example.com", "--password-stdin")
	pid := te.must(t, "", "project", "create", "--name", "Docs", "--repo", newDocsRepo(t), "--owner", "ada@example.com")
	onTerminal := func(args ...string) string {
		t.Helper()
		line := "'" + os.Args[0] + "'" // this test binary, as folio (see TestMain)
		for _, a := range args {
			line += " '" + a + "'"
		}
		cmd := exec.Command("script", "-qefc", line, "/dev/null")
		cmd.Env = append(os.Environ(), "FOLIO_TEST_RUN_MAIN=1")
		for k, v := range te {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("folio %s on a terminal: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	bar := func(label string) *regexp.Regexp {
		return regexp.MustCompile(`\r` + label + ` \[=+ *\] +100% `)
	}

	// indexed checks the summary of the index written after a bulk write.
	indexed := func(out string, views int) {
		t.Helper()
		m := regexp.MustCompile(fmt.Sprintf(`\nanalytics index for serve's start-up saved to (\S+\.idx), %d views read from the database in [0-9.]+m?s \([0-9,]+ views/s\)\r?\n$`, views)).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("the command wrote %q, want it to end with the index's summary, %d views read", tail(out), views)
			return
		}
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("the index snapshot it names: %v", err)
		}
	}
	out := onTerminal("analytics", "generate", "--project", pid, "--views", "30000", "--days", "30")
	if !bar("generate").MatchString(out) || !regexp.MustCompile(`\n30000 page views generated in [0-9.]+m?s \([0-9,]+ views/s\)\r?\n`).MatchString(out) || !bar("index").MatchString(out) {
		t.Errorf("generate on a terminal wrote %q, want bars ending at 100%% and a summary with the rate", tail(out))
	}
	indexed(out, 30000)

	var log strings.Builder
	start := time.Now().UTC().AddDate(0, 0, -2)
	for i := range 20000 {
		fmt.Fprintf(&log, "203.0.113.%d - - [%s] \"GET /docs/page-%d HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0\"\n",
			i%250+1, start.Add(time.Duration(i)*time.Second).Format("02/Jan/2006:15:04:05 -0700"), i%40)
	}
	file := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(file, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out = onTerminal("analytics", "import", "--project", pid, file)
	if !bar("import").MatchString(out) || !regexp.MustCompile(`\n20000 lines read, 20000 page views stored, 0 skipped in [0-9.]+m?s \([0-9,]+ lines/s\)\r?\n`).MatchString(out) {
		t.Errorf("import on a terminal wrote %q, want a bar ending at 100%% and a summary with the rate", tail(out))
	}
	indexed(out, 20000) // the views since generate's snapshot

	// Without a terminal: the summary alone.
	code, stdout, stderr := te.folio(t, "", "analytics", "generate", "--project", pid, "--views", "2000", "--days", "3")
	if code != 0 || stdout != "" || strings.Contains(stderr, "\r") || !regexp.MustCompile(`^2000 page views generated in [0-9.]+m?s \([0-9,]+ views/s\)\nanalytics index [^\n]+\n$`).MatchString(stderr) {
		t.Errorf("generate without a terminal: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	indexed("\n"+stderr, 2000)
}

func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}
