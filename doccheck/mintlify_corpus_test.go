package doccheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/internal/testenv"
)

// The corpus: docs repositories, each with the verdict Mintlify's own
// validators gave it (regenerate with `go tool task mintlify-verdicts`).
// Folio's checks must agree with them; see testdata/mintlify/README.md.

const corpusDir = "testdata/mintlify"

// Goal of issue 16: this much agreement, and no build-breaking edit passed
// in the classes below.
const (
	agreementGoal = 0.97
)

var noMissedFailures = map[string]bool{"config": true, "mdx": true, "navigation": true, "links": true}

type corpusCase struct {
	name    string
	header  map[string]string
	files   map[string]string // the repository: the base's files with the case's applied
	changes []workspace.Change
}

type judgeVerdict struct {
	Pass     bool     `json:"pass"`
	Messages []string `json:"messages"`
}

type corpusVerdict struct {
	Pass    bool                    `json:"pass"`
	Judges  map[string]judgeVerdict `json:"judges"`
	Anchors judgeVerdict            `json:"anchors"`
}

// parseTxtar reads a case: "key: value" header lines, then "-- name --" files.
func parseTxtar(text string) (map[string]string, map[string]string) {
	header := map[string]string{}
	files := map[string]string{}
	current := ""
	var body []string
	flush := func() {
		if current != "" {
			files[current] = strings.Join(body, "")
		}
	}
	lines := strings.SplitAfter(text, "\n")
	for _, line := range lines {
		if line == "" {
			continue
		}
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			current, body = trimmed[3:len(trimmed)-3], nil
			continue
		}
		if current != "" {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			body = append(body, line)
			continue
		}
		if k, v, ok := strings.Cut(trimmed, ":"); ok && !strings.HasPrefix(trimmed, "#") && !strings.Contains(k, " ") {
			header[k] = strings.TrimSpace(v)
		}
	}
	flush()
	return header, files
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	_, base := parseTxtar(read("_base.txtar"))
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txtar")
		if !ok || strings.HasPrefix(name, "_") {
			continue
		}
		header, own := parseTxtar(read(e.Name()))
		c := corpusCase{name: name, header: header, files: map[string]string{}}
		if header["base"] != "none" {
			for k, v := range base {
				c.files[k] = v
			}
		}
		for k, v := range own {
			c.files[k] = v
		}
		for _, del := range strings.Fields(header["delete"]) {
			delete(c.files, del)
			c.changes = append(c.changes, workspace.Change{Path: del, Status: "D"})
		}
		// The edit is the case's difference from the base repository.
		for k, v := range own {
			if old, ok := base[k]; !ok {
				c.changes = append(c.changes, workspace.Change{Path: k, Status: "A"})
			} else if old != v {
				c.changes = append(c.changes, workspace.Change{Path: k, Status: "M"})
			}
		}
		if len(c.changes) == 0 {
			c.changes = []workspace.Change{{Path: header["edited"], Status: "M"}}
		}
		sort.Slice(c.changes, func(i, j int) bool { return c.changes[i].Path < c.changes[j].Path })
		cases = append(cases, c)
	}
	return cases
}

func (c corpusCase) verdict(t *testing.T) corpusVerdict {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, c.name+".verdict.json"))
	if err != nil {
		t.Fatalf("%s has no recorded verdict (run go tool task mintlify-verdicts): %v", c.name, err)
	}
	var v corpusVerdict
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s.verdict.json: %v", c.name, err)
	}
	return v
}

func (c corpusCase) materialize(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, c.files)
	return dir
}

func judgeMessages(v corpusVerdict) string {
	var msgs []string
	for _, name := range []string{"schema", "prebuild", "links"} {
		if j := v.Judges[name]; !j.Pass {
			msgs = append(msgs, name+": "+strings.Join(j.Messages, " / "))
		}
	}
	return strings.Join(msgs, "; ")
}

// TestMintlifyAgreement runs Folio's checks on every case of the corpus and
// compares them with the recorded verdicts of Mintlify's validators.
func TestMintlifyAgreement(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 80 {
		t.Fatalf("the corpus has %d cases, want at least 80", len(cases))
	}
	type tally struct{ cases, agree, missed, flagged int }
	byClass := map[string]*tally{}
	total := &tally{}
	var anchorCases, anchorAgree int
	var disagreements []string
	for _, c := range cases {
		v := c.verdict(t)
		dir := c.materialize(t)
		problems := checkDir(t, dir, c.changes)
		folioPass := !HasErrors(problems)
		class := c.header["class"]
		if byClass[class] == nil {
			byClass[class] = &tally{}
		}
		for _, tl := range []*tally{byClass[class], total} {
			tl.cases++
			switch {
			case folioPass == v.Pass:
				tl.agree++
			case folioPass:
				tl.missed++
			default:
				tl.flagged++
			}
		}
		if folioPass != v.Pass {
			var got []string
			for _, p := range problems {
				got = append(got, p.Severity+" "+p.String())
			}
			want := "pass"
			if !v.Pass {
				want = "fail (" + judgeMessages(v) + ")"
			}
			disagreements = append(disagreements, fmt.Sprintf("%s [%s]: Mintlify %s; Folio %q", c.name, class, want, got))
			if !folioPass || !noMissedFailures[class] {
				continue
			}
			t.Errorf("%s [%s]: Mintlify fails this edit but Folio passes it: %s", c.name, class, judgeMessages(v))
		}
		// Anchors: where the build passes, Folio warns exactly when
		// `mint broken-links --check-anchors` complains.
		if v.Pass {
			anchorCases++
			warned := false
			for _, p := range problems {
				if p.Severity == SeverityWarning && strings.Contains(p.Message, "#") && strings.Contains(p.Message, "heading") {
					warned = true
				}
			}
			if warned == !v.Anchors.Pass {
				anchorAgree++
			} else {
				disagreements = append(disagreements, fmt.Sprintf("%s: anchors: Mintlify %v, Folio warned %v", c.name, v.Anchors.Pass, warned))
			}
		}
	}
	classes := make([]string, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	t.Logf("agreement with Mintlify's validators (@mintlify/cli 4.0.1552) on %d cases:", total.cases)
	t.Logf("  %-12s %5s %6s %8s %s", "class", "cases", "agree", "missed", "flagged")
	for _, k := range classes {
		tl := byClass[k]
		t.Logf("  %-12s %5d %6d %8d %7d", k, tl.cases, tl.agree, tl.missed, tl.flagged)
	}
	rate := float64(total.agree) / float64(total.cases)
	t.Logf("  %-12s %5d %6d %8d %7d  = %.1f%% agreement", "all", total.cases, total.agree, total.missed, total.flagged, 100*rate)
	t.Logf("  anchors (warnings, on the %d cases that build): %d agree", anchorCases, anchorAgree)
	for _, d := range disagreements {
		t.Logf("  disagrees: %s", d)
	}
	if rate < agreementGoal {
		t.Errorf("agreement %.1f%% is under the goal of %.0f%%", 100*rate, 100*agreementGoal)
	}
}
