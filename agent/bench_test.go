package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// generatedSite is a docs repository of n pages in 20 sections, each linked
// from docs.json, the shape of a large Mintlify site.
func generatedSite(n int) map[string]string {
	files := map[string]string{}
	var groups []string
	for s := range 20 {
		var pages []string
		for p := range n / 20 {
			name := fmt.Sprintf("section-%02d/page-%03d", s, p)
			pages = append(pages, `"`+name+`"`)
			files[name+".mdx"] = fmt.Sprintf("---\ntitle: Page %d of section %d\ndescription: Generated\n---\n\n%s\n\nSee [the next page](/section-%02d/page-%03d) and [home](/index).\n",
				p, s, strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 20), s, (p+1)%(n/20))
		}
		groups = append(groups, fmt.Sprintf(`{"group":"Section %d","pages":[%s]}`, s, strings.Join(pages, ",")))
	}
	files["index.mdx"] = "---\ntitle: Home\n---\n\nWelcome.\n"
	files["docs.json"] = `{"theme":"mint","name":"Big","colors":{"primary":"#0D9373"},"navigation":{"groups":[{"group":"Home","pages":["index"]},` + strings.Join(groups, ",") + `]}}`
	return files
}

// BenchmarkRunOverhead is a whole run on a 1,000-page repository with a model
// that answers at once: clone, six tool calls, validation, commit, push and
// the pull request (the local host), i.e. everything apart from the model.
func BenchmarkRunOverhead(b *testing.B) {
	repo := newTestRepo(b, generatedSite(1000))
	model := newOpenAIServer(b)
	a := newTestAgent(b, openAIConfig(model))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		model.mu.Lock()
		model.steps = []step{
			{calls: []ToolCall{call("c1", "list_files", map[string]string{"path": "section-03"}), call("c2", "search_files", map[string]string{"query": "page 7 of section 3"})}},
			{calls: []ToolCall{call("c3", "read_file", map[string]string{"path": "section-03/page-007.mdx"})}},
			{calls: []ToolCall{call("c4", "edit_file", map[string]string{"path": "section-03/page-007.mdx", "old_string": "description: Generated", "new_string": "description: Edited"})}},
			{calls: []ToolCall{call("c5", "write_file", map[string]string{"path": "section-03/new.mdx", "content": "---\ntitle: New\n---\n\nSee [page 7](/section-03/page-007).\n"})}},
			{calls: []ToolCall{call("c6", "edit_file", map[string]string{"path": "docs.json", "old_string": `"section-03/page-000"`, "new_string": `"section-03/new","section-03/page-000"`})}},
			{text: "Done."},
		}
		model.mu.Unlock()
		b.StartTimer()
		res, err := a.Run(context.Background(), localRun(repo, fmt.Sprintf("bench%d", i), "Edit page 7"), func(context.Context, Message) error { return nil })
		if err != nil || !res.Changed {
			b.Fatalf("run %d: %+v, %v", i, res, err)
		}
	}
}
