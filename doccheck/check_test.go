package doccheck

import (
	"os"
	"strings"
	"testing"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/internal/testenv"
)

// validDocs is the smallest docs.json Mintlify builds, with the given navigation.
func validDocs(navigation string) string {
	return `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":` + navigation + `}`
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return dir
}

// checkDir runs Check on the checkout in dir, opened as the agent opens it.
func checkDir(t *testing.T, dir string, changes []workspace.Change) []Problem {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return Check(root, changes)
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		changes []workspace.Change
		want    []string // substrings, one per expected problem (severity, then path:line:col: message); none means clean
	}{
		{"clean page", map[string]string{"a.mdx": "---\ntitle: A\n---\n## Top\n[b](/b) [c](./c.md#x) [ext](https://x.io) [anchor](#top)\n", "b.mdx": "", "c.md": "## X\n"},
			[]workspace.Change{{Path: "a.mdx", Status: "M"}}, nil},
		// Mintlify builds it (the --- is a horizontal rule), so a warning, not an error.
		{"unclosed frontmatter", map[string]string{"a.mdx": "---\ntitle: A\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, []string{"warning a.mdx:1:1: the frontmatter opened with --- on line 1 is never closed"}},
		{"bad yaml", map[string]string{"a.mdx": "---\ntitle: [A\n---\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, []string{"error a.mdx:2: the frontmatter is not valid YAML"}},
		// Mintlify builds a frontmatter that is a list; the page just has no title.
		{"frontmatter not a mapping", map[string]string{"a.md": "---\n- a\n---\n"}, []workspace.Change{{Path: "a.md", Status: "M"}}, []string{"warning a.md:2:1: the frontmatter should be a YAML mapping"}},
		{"tab-indented frontmatter", map[string]string{"a.mdx": "---\ntitle: A\nseo:\n\tdescription: B\n---\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, nil},
		{"broken links", map[string]string{"g/a.mdx": "[x](/nope) <Card href=\"/gone\"/> [up](../../out) `[code](/ignored)`\n"}, []workspace.Change{{Path: "g/a.mdx", Status: "A"}},
			[]string{`error g/a.mdx:1:1: link "/nope"`, `error g/a.mdx:1:24: link "/gone"`, `error g/a.mdx:1:33: link "../../out" points outside the docs`}},
		{"bare links resolve from the docs root", map[string]string{"guides/a.mdx": "[q](quickstart) [b](b)\n", "guides/b.mdx": "", "quickstart.mdx": ""}, []workspace.Change{{Path: "guides/a.mdx", Status: "M"}},
			[]string{`error guides/a.mdx:1:17: link "b" points at a page that does not exist`}},
		{"missing anchor is a warning", map[string]string{"a.mdx": "[b](/b#nope) [b](/b#usage)\n", "b.mdx": "## Usage\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}},
			[]string{`warning a.mdx:1:1: link "/b#nope": b.mdx has no heading #nope`}},
		{"unclosed JSX", map[string]string{"a.mdx": "---\ntitle: A\n---\n\n<Note>\nHi\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, []string{"error a.mdx:5:1: `<Note>` is never closed"}},
		{"unbalanced brace", map[string]string{"a.mdx": "Set the {name field.\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, []string{"error a.mdx:1:9: `{` opens an expression that is never closed"}},
		{"nav names a missing page", map[string]string{"docs.json": validDocs(`{"groups":[{"group":"G","pages":["a",{"group":"H","pages":["missing"]}]}]}`), "a.mdx": ""},
			[]workspace.Change{{Path: "docs.json", Status: "M"}}, []string{`error docs.json:1:134: navigation names page "missing"`}},
		{"nav entry with its extension", map[string]string{"docs.json": validDocs(`{"pages":["a.mdx"]}`), "a.mdx": ""},
			[]workspace.Change{{Path: "docs.json", Status: "M"}}, []string{`error docs.json:1:85: navigation entry "a.mdx" must name the page without its extension: "a"`}},
		{"nav broken by a deleted page", map[string]string{"mint.json": `{"name":"A","favicon":"/f.svg","colors":{"primary":"#0D9373"},"navigation":[{"group":"G","pages":["a"]}]}`},
			[]workspace.Change{{Path: "a.mdx", Status: "D"}}, []string{`navigation names page "a"`}},
		{"nav names a page outside the repository", map[string]string{"docs.json": validDocs(`{"groups":[{"group":"G","pages":["../../../../etc/passwd"]}]}`)},
			[]workspace.Change{{Path: "docs.json", Status: "M"}}, []string{"outside the repository"}},
		{"nav not json", map[string]string{"docs.json": `{"navigation":`}, []workspace.Change{{Path: "docs.json", Status: "M"}}, []string{"error docs.json:1:15: is not valid JSON"}},
		{"config missing its required fields", map[string]string{"docs.json": `{"navigation":{"pages":[]}}`}, []workspace.Change{{Path: "docs.json", Status: "M"}},
			[]string{`"theme" is required`, `"name" is required`, `"colors" is required`}},
		{"v1 navigation in docs.json", map[string]string{"docs.json": validDocs(`[{"group":"G","pages":["a"]}]`), "a.mdx": ""}, []workspace.Change{{Path: "docs.json", Status: "M"}},
			[]string{`error docs.json:1:75: "navigation" must be an object`}},
		{"mint.json needs a favicon", map[string]string{"mint.json": `{"name":"A","colors":{"primary":"#0D9373"},"navigation":[]}`}, []workspace.Change{{Path: "mint.json", Status: "M"}},
			[]string{`error mint.json:1:1: "favicon" is required in mint.json`}},
		{"untouched nav not checked", map[string]string{"docs.json": `{"navigation":[{"pages":["old"]}]}`, "a.mdx": "hi"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, nil},
		{"a link to a deleted page", map[string]string{"docs.json": validDocs(`{"pages":["a"]}`), "a.mdx": "See [b](/b).\n"}, []workspace.Change{{Path: "b.mdx", Status: "D"}},
			[]string{`error a.mdx:1:5: link "/b" points at a page this change deletes`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			var got []string
			for _, p := range checkDir(t, dir, tc.changes) {
				got = append(got, p.Severity+" "+p.String())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems = %q, want %d matching %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(strings.Join(got, "\n"), w) {
					t.Errorf("problem %d: none of %q contains %q", i, got, w)
				}
			}
		})
	}
}
