package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The size of what each request carries, measured the way the task suite
// does (agent/eval): a scripted model that reports a request's prompt
// tokens as its bytes / 4. BENCHMARKS.md, "The agent's context", records
// what these print with -v.

// bytesAsTokens reports a request's prompt tokens as its bytes / 4.
func bytesAsTokens(body []byte) int64 { return int64(len(body) / 4) }

// longRun is a job of two turns on a 1,000-page site, the example
// of a run that grows: 40 model calls that list, search, read 30 pages and
// edit 7 files, then a follow-up of 10 more. The same script runs with the
// whole history sent (what Folio did before) and with the context bounded.
func longRun() (first, second []step) {
	read := func(id string, s, p int) step {
		return step{calls: []ToolCall{call(id, "read_file", map[string]string{"path": fmt.Sprintf("section-%02d/page-%03d.mdx", s, p)})}}
	}
	first = []step{
		{calls: []ToolCall{call("l1", "list_files", map[string]string{"path": "section-03"})}},
		{calls: []ToolCall{call("s1", "search_files", map[string]string{"query": "of section 3"})}},
	}
	for i := range 30 {
		first = append(first, read(fmt.Sprintf("r%d", i), 3+i/10, i%10*5))
	}
	for i := range 5 {
		first = append(first, step{calls: []ToolCall{call(fmt.Sprintf("e%d", i), "edit_file", map[string]string{
			"path": fmt.Sprintf("section-03/page-%03d.mdx", i*5), "old_string": "description: Generated", "new_string": "description: Reviewed"})}})
	}
	first = append(first,
		step{calls: []ToolCall{call("w1", "write_file", map[string]string{"path": "section-03/overview.mdx",
			"content": "---\ntitle: Section 3 overview\ndescription: What section 3 covers\n---\n\n" + strings.Repeat("Section 3 explains the pages that follow, one by one. ", 40) + "\n"})}},
		step{calls: []ToolCall{call("n1", "edit_file", map[string]string{"path": "docs.json", "old_string": `"section-03/page-000"`, "new_string": `"section-03/overview","section-03/page-000"`})}},
		step{text: "Reviewed section 3 and added an overview."}, // and again after Folio's review of the diff
	)
	for i := range 8 {
		second = append(second, read(fmt.Sprintf("f%d", i), 7, i*5))
	}
	second = append(second,
		step{calls: []ToolCall{call("fe", "edit_file", map[string]string{"path": "section-03/overview.mdx", "old_string": "Section 3 overview", "new_string": "Section 3 at a glance"})}},
		step{text: "Retitled the overview."},
	)
	return first, second
}

// runSizes runs longRun with lim and returns each request's prompt tokens.
func runSizes(t *testing.T, lim contextLimits) []int64 {
	t.Helper()
	repo := newTestRepo(t, generatedSite(1000))
	first, second := longRun()
	m := newOpenAIServer(t, first...)
	m.promptTokens = bytesAsTokens
	a := newTestAgent(t, openAIConfig(m))
	a.context = lim
	rec := &recorder{}
	run := localRun(repo, "jl", "Review section 3 and add an overview page to its navigation.")
	res, err := a.Run(context.Background(), run, rec.record)
	if err != nil || !res.Changed {
		t.Fatalf("first turn: %+v, %v", res, err)
	}
	if m.mu.Lock(); len(m.steps) != 0 {
		t.Fatalf("first turn: %d scripted replies left unused", len(m.steps))
	}
	m.mu.Unlock()
	m.mu.Lock()
	m.steps = second
	m.mu.Unlock()
	run.PRLink = res.PRLink
	run.History = append(append(run.History, rec.all()...), Message{Role: RoleUser, Content: "Call it section 3 at a glance instead."})
	if res, err := a.Run(context.Background(), run, rec.record); err != nil || !res.Changed {
		t.Fatalf("follow-up: %+v, %v", res, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.steps) != 0 {
		t.Fatalf("%d scripted replies left unused", len(m.steps))
	}
	return append([]int64(nil), m.sizes...)
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

// Masking old outputs and compacting earlier turns carries the same run in
// far fewer tokens: the requests no longer grow with every call.
func TestMaskingSavesTokens(t *testing.T) {
	before := runSizes(t, contextLimits{whole: true})
	after := runSizes(t, normalContext)
	if len(before) != len(after) {
		t.Fatalf("%d requests with the whole history, %d bounded: the same script should make the same calls", len(before), len(after))
	}
	t.Logf("%d requests (%d in the first turn)", len(after), len(after)-11)
	t.Logf("whole history: %d input tokens in all, largest request %d, last of turn 1 %d, first of the follow-up %d",
		sum(before), slices.Max(before), before[len(before)-12], before[len(before)-11])
	t.Logf("bounded:       %d input tokens in all, largest request %d, last of turn 1 %d, first of the follow-up %d",
		sum(after), slices.Max(after), after[len(after)-12], after[len(after)-11])
	t.Logf("request by request, whole: %v", before)
	t.Logf("request by request, bounded: %v", after)
	t.Logf("saved: %.0f %% of the input tokens, %.0f %% of the largest request",
		100*(1-float64(sum(after))/float64(sum(before))), 100*(1-float64(slices.Max(after))/float64(slices.Max(before))))
	for i := range 10 { // before any output is masked, the requests are the same
		if after[i] != before[i] {
			t.Fatalf("request %d: %d tokens bounded, %d whole; want the same before masking starts", i+1, after[i], before[i])
		}
	}
	if sum(after)*2 > sum(before) || slices.Max(after)*2 > slices.Max(before) {
		t.Fatalf("bounded: %d in all, largest %d; whole: %d, %d; want less than half of each", sum(after), slices.Max(after), sum(before), slices.Max(before))
	}
}

// However many calls a run makes, its largest request stays within the
// bound BENCHMARKS.md states: the first request (system prompt, tools and
// prompt), plus 128 KB of calls kept whole, plus the latest call, plus a
// short note for every masked call. Here a model reads a 400 KB page, 32
// KB a window, 55 times.
func TestRequestSizeStaysBounded(t *testing.T) {
	line := strings.Repeat("A long reference page, read a window at a time. ", 2) + "\n" // 99 bytes
	page := "---\ntitle: Reference\n---\n\n" + strings.Repeat(line, 4000)
	files := docsSite()
	files["reference.mdx"] = page
	repo := newTestRepo(t, files)
	var steps []step
	for i := range 55 {
		steps = append(steps, step{calls: []ToolCall{{ID: fmt.Sprintf("r%d", i), Name: "read_file",
			Arguments: []byte(fmt.Sprintf(`{"path":"reference.mdx","offset":%d,"limit":400}`, 1+i%10*330))}}})
	}
	m := newOpenAIServer(t, append(steps, step{text: "Read it."})...)
	m.promptTokens = func(body []byte) int64 { return int64(len(body)) } // bytes, here
	cfg := openAIConfig(m)
	cfg.MaxTokens = 1 << 40 // bytes counted as tokens would pass the run's budget
	if _, err := newTestAgent(t, cfg).Run(context.Background(), localRun(repo, "jb", "Read the reference page."), (&recorder{}).record); err != nil {
		t.Fatal(err)
	}
	sizes := m.sizes
	perCall := int64(600) // a masked call: the call itself and the note in place of its output
	bound := sizes[0] + keptCallBytes + 33<<10 + int64(len(sizes))*perCall
	t.Logf("%d requests; the first %d bytes, the largest %d bytes (%d tokens as bytes / 4), the bound %d bytes; with nothing masked the last would be over %d bytes",
		len(sizes), sizes[0], slices.Max(sizes), slices.Max(sizes)/4, bound, 55*32<<10)
	if got := slices.Max(sizes); got > bound {
		t.Fatalf("the largest request is %d bytes, over the bound %d", got, bound)
	}
	if last := sizes[len(sizes)-1]; last < sizes[0]+3*32<<10 {
		t.Fatalf("the last read's request is %d bytes: the windows kept whole (3 of 32 KB fit in 128 KB) are not there", last)
	}
}
