package doccheck

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func outlineOf(t *testing.T, files map[string]string, max int) string {
	t.Helper()
	root, err := os.OpenRoot(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return Outline(root, max)
}

// The outline lists the navigation as it nests, counts the pages and names
// those no navigation lists.
func TestOutline(t *testing.T) {
	files := map[string]string{
		"docs.json": validDocs(`{"tabs":[
			{"tab":"Guides","groups":[
				{"group":"Start","pages":["index","guides/quickstart",{"group":"Deeper","pages":["guides/deep/one"]}]}]},
			{"tab":"API","pages":["api/intro","GET /widgets"]}]}`),
		"index.mdx":             "---\ntitle: Home\n---\n",
		"guides/quickstart.mdx": "---\ntitle: Quickstart\n---\n",
		"guides/deep/one.md":    "# One\n",
		"api/intro.mdx":         "---\ntitle: API\n---\n",
		"guides/orphan.mdx":     "---\ntitle: Orphan\n---\n",
		"snippets/note.mdx":     "A snippet.\n",
		".github/template.md":   "Not a page.\n",
		"images/logo.svg":       "<svg/>",
	}
	got := outlineOf(t, files, 4000)
	want := `docs.json: 5 pages (.mdx and .md files, snippets aside); 1 in no navigation: guides/orphan.mdx. Its navigation, pages by path without extension:
- tab "Guides"
  - group "Start": index, guides/quickstart
    - group "Deeper": guides/deep/one
- tab "API": api/intro, GET /widgets
`
	if got != want {
		t.Errorf("outline =\n%s\nwant\n%s", got, want)
	}

	// mint.json's navigation is an array of groups.
	got = outlineOf(t, map[string]string{
		"mint.json": `{"name":"Old","navigation":[{"group":"Basics","pages":["intro"]}]}`,
		"intro.mdx": "# Intro\n",
	}, 4000)
	if want := "mint.json: 1 pages (.mdx and .md files, snippets aside). Its navigation, pages by path without extension:\n- group \"Basics\": intro\n"; got != want {
		t.Errorf("mint.json outline =\n%s\nwant\n%s", got, want)
	}

	if got := outlineOf(t, map[string]string{"index.mdx": "# Hi\n"}, 4000); got != "" {
		t.Errorf("outline without a configuration = %q, want none", got)
	}
	if got := outlineOf(t, map[string]string{"docs.json": `{"navigation": [`}, 4000); !strings.Contains(got, "docs.json is not valid JSON") {
		t.Errorf("outline of a broken docs.json = %q", got)
	}
}

// A navigation too long to list page by page is shown by groups with their
// page counts, and what still does not fit is counted.
func TestOutlineStaysWithinItsBound(t *testing.T) {
	files := map[string]string{}
	var groups []string
	for s := range 40 {
		var pages []string
		for p := range 25 {
			name := fmt.Sprintf("section-%02d/page-%03d", s, p)
			pages = append(pages, `"`+name+`"`)
			files[name+".mdx"] = "# P\n"
		}
		groups = append(groups, fmt.Sprintf(`{"group":"Section %d","pages":[%s]}`, s, strings.Join(pages, ",")))
	}
	files["docs.json"] = validDocs(`{"groups":[` + strings.Join(groups, ",") + `]}`)

	got := outlineOf(t, files, 8<<10)
	if len(got) > 8<<10 || !strings.Contains(got, "docs.json: 1000 pages") || !strings.Contains(got, "- group \"Section 7\": 25 pages in section-07/\n") || strings.Contains(got, "page-003") {
		t.Errorf("outline of 1,000 pages (%d bytes) is not the brief form:\n%s", len(got), got)
	}
	got = outlineOf(t, files, 1000)
	if len(got) > 1000 || !strings.Contains(got, "more lines of navigation; read the file for them") {
		t.Errorf("outline within 1000 bytes (%d bytes):\n%s", len(got), got)
	}
}
