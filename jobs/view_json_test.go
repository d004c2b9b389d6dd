package jobs

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/model"
)

// reflectiveJSON is the job's JSON as the API has always sent it: through
// reflection, with the times as stamps.
func reflectiveJSON(t *testing.T, j Job) []byte {
	t.Helper()
	type plain Job
	b, err := json.Marshal(struct {
		plain
		CreatedAt  stamp  `json:"createdAt"`
		ArchivedAt *stamp `json:"archivedAt"`
		UpdatedAt  stamp  `json:"updatedAt"`
		MergedAt   *stamp `json:"mergedAt"`
	}{plain(j), stamp(j.CreatedAt), stampOf(j.ArchivedAt), stamp(j.UpdatedAt), stampOf(j.MergedAt)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var trickyStrings = []string{
	"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "<script>&amp;</script>", "line\u2028para\u2029end",
	"bad \xff utf8 \xc3", "\xe2\x80", "émoji 🚀 中文", "\u00a0nbsp", "https://github.com/o/r/pull/1?a=1&b=<2>",
}

func TestJobJSONMatchesReflection(t *testing.T) {
	at := time.Date(2026, 11, 21, 20, 39, 13, 570_123_000, time.FixedZone("CET", 3600))
	zero := time.Time{}
	check := func(j Job) {
		t.Helper()
		want := reflectiveJSON(t, j)
		got, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("job JSON differs from the reflective form\n got: %s\nwant: %s", got, want)
		}
		// The API's encoder (HTML escaping off) re-compacts what MarshalJSON
		// gives; it must leave the bytes alone.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(j); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), want) {
			t.Errorf("encoder output differs\n got: %s\nwant: %s", buf.Bytes(), want)
		}
	}
	for _, s := range trickyStrings {
		link, summary := s, s
		check(Job{ID: s, Status: model.JobStatus(s), Source: Source{s, s}, Model: s, PRLink: &link, CreatedAt: at, ArchivedAt: &at,
			UpdatedAt: zero, Branch: s, Usage: Usage{Steps: -3, Tokens: 1 << 40}, Error: &JobError{s, s},
			Summary: &summary, MergedAt: &at, Problems: []doccheck.Problem{
				{Path: s, Line: 3, Column: 14, Severity: doccheck.SeverityError, Message: s},
				{Path: s, Severity: s, Message: s},
				{Path: "docs.json", Line: 1, Severity: doccheck.SeverityWarning},
			}})
		check(Job{ID: s, Status: "active", Model: s, CreatedAt: zero, UpdatedAt: at, Usage: Usage{Steps: 7}, Problems: []doccheck.Problem{}})
		cost := 0.012345
		check(Job{ID: s, Status: "completed", Model: s, CreatedAt: at, UpdatedAt: at, Usage: Usage{Steps: 2, Tokens: 9, InputTokens: 7,
			OutputTokens: 2, CachedTokens: 5, CacheWriteTokens: 1, CostUSD: &cost}})
		check(Job{ID: s, Status: "active", Model: s, CreatedAt: zero, UpdatedAt: at})
	}
	// Random bytes, weighted towards the characters that need escaping.
	alphabet := []string{"a", "\"", "\\", "<", ">", "&", "\n", "\x00", "\x1f", "\x7f", "\xff", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80", "é", "🚀", "\xf0\x9f"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var s []byte
		for range r.IntN(24) {
			if r.IntN(4) == 0 {
				s = append(s, byte(r.IntN(256)))
			} else {
				s = append(s, alphabet[r.IntN(len(alphabet))]...)
			}
		}
		str := string(s)
		check(Job{ID: str, Status: "failed", Source: Source{Repository: str}, Branch: str, PRLink: &str,
			CreatedAt: at, UpdatedAt: at, Error: &JobError{Code: "x", Message: str}, Summary: &str,
			Problems: []doccheck.Problem{{Path: str, Line: r.IntN(3), Column: r.IntN(3), Severity: str, Message: str}}})
	}
}

func BenchmarkJobJSON(b *testing.B) {
	at := time.Date(2026, 11, 21, 20, 39, 13, 570_000_000, time.UTC)
	link := "https://github.com/acme/docs/pull/42"
	j := Job{ID: "k3n5v2xq7m4p8r6t1w9y0z2a4b", Status: "succeeded", Source: Source{"github.com/acme/docs", "main"},
		Model: "gpt-4.1", PRLink: &link, CreatedAt: at, UpdatedAt: at, Branch: "folio/k3n5v2xq", Usage: Usage{Steps: 3, Tokens: 12345}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(j); err != nil {
			b.Fatal(err)
		}
	}
}
