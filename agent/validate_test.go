package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/agent/workspace"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		changes []workspace.Change
		want    []string // substrings, one per expected problem; none means clean
	}{
		{"clean page", map[string]string{"a.mdx": "---\ntitle: A\n---\n[b](/b) [c](./c.md#x) [ext](https://x.io) [anchor](#top)\n", "b.mdx": "", "c.md": ""},
			[]workspace.Change{{Path: "a.mdx", Status: "M"}}, nil},
		{"unclosed frontmatter", map[string]string{"a.mdx": "---\ntitle: A\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, []string{"never closed"}},
		{"bad yaml", map[string]string{"a.mdx": "---\ntitle: [A\n---\n"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, []string{"not valid YAML"}},
		{"frontmatter not a mapping", map[string]string{"a.md": "---\n- a\n---\n"}, []workspace.Change{{Path: "a.md", Status: "M"}}, []string{"mapping"}},
		{"broken links", map[string]string{"g/a.mdx": "[x](/nope) <Card href=\"/gone\"/> [up](../../out) `[code](/ignored)`\n"}, []workspace.Change{{Path: "g/a.mdx", Status: "A"}},
			[]string{`"/nope"`, `"/gone"`, "outside the repository"}},
		{"nav names a missing page", map[string]string{"docs.json": `{"navigation":[{"group":"G","pages":["a",{"group":"H","pages":["missing"]}]}]}`, "a.mdx": ""},
			[]workspace.Change{{Path: "docs.json", Status: "M"}}, []string{`"missing"`}},
		{"nav broken by a deleted page", map[string]string{"mint.json": `{"navigation":[{"group":"G","pages":["a"]}]}`},
			[]workspace.Change{{Path: "a.mdx", Status: "D"}}, []string{`"a"`}},
		{"nav names a page outside the repository", map[string]string{"docs.json": `{"navigation":[{"group":"G","pages":["../../../../etc/passwd"]}]}`},
			[]workspace.Change{{Path: "docs.json", Status: "M"}}, []string{"outside the repository"}},
		{"nav not json", map[string]string{"docs.json": `{"navigation":`}, []workspace.Change{{Path: "docs.json", Status: "M"}}, []string{"not valid JSON"}},
		{"untouched nav not checked", map[string]string{"docs.json": `{"navigation":[{"pages":["old"]}]}`, "a.mdx": "hi"}, []workspace.Change{{Path: "a.mdx", Status: "M"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(content), 0o644)
			}
			var got []string
			for _, p := range validate(dir, tc.changes) {
				got = append(got, p.String())
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
