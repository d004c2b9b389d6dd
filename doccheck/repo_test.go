package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/internal/testenv"
)

// A repository can hold symbolic links to anything on the machine that runs
// the checks. They are not followed out of the checkout: what is outside is
// never read (the outside files here would each produce a problem naming
// LEAKED if it were), and every link the checks needed says what it is.
func TestCheckDoesNotFollowLinksOutside(t *testing.T) {
	outside := t.TempDir()
	testenv.WriteFiles(t, outside, map[string]string{
		"page.mdx":          "## Leaked\n\n[x](/LEAKED) [y](/gone)\n",
		"docs.json":         `{"LEAKED":`,
		"snippets/note.mdx": "LEAKED {\n",
	})
	dir := writeFiles(t, map[string]string{
		"docs.json": validDocs(`{"groups":[{"group":"G","pages":["a","secret","host","inside"]}]}`),
		"a.mdx": "---\ntitle: A\n---\nimport Note from '/snippets/note.mdx'\n\n" +
			"[s](/secret#leaked) [h](/host) [u](/up) [i](/inside#usage)\n",
		"b.mdx":     "## Usage\n",
		"sub/.keep": "",
	})
	links := map[string]string{
		"secret.mdx":    filepath.Join(outside, "page.mdx"),
		"host.mdx":      "/etc/hostname",
		"up.mdx":        "../" + filepath.Base(outside) + "/page.mdx", // relative, climbing out (t.TempDir's are siblings)
		"inside.mdx":    "b.mdx",                                      // stays inside: followed
		"snippets":      filepath.Join(outside, "snippets"),
		"sub/docs.json": filepath.Join(outside, "docs.json"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}

	var got []string
	for _, p := range checkDir(t, dir, []workspace.Change{{Path: "a.mdx", Status: "A"}, {Path: "secret.mdx", Status: "M"}, {Path: "gone.mdx", Status: "D"}}) {
		got = append(got, p.Severity+" "+p.String())
	}
	all := strings.Join(got, "\n")
	if strings.Contains(all, "LEAKED") || strings.Contains(all, "Leaked") {
		t.Fatalf("a problem quotes a file outside the checkout:\n%s", all)
	}
	const link = "is a symbolic link leading outside the repository; the checks do not follow it"
	want := []string{
		"error secret.mdx: " + link,
		`error a.mdx:4:19: imports "/snippets/note.mdx", which ` + link,
		`error a.mdx:6:1: link "/secret#leaked" points at secret.mdx, which ` + link,
		`error a.mdx:6:21: link "/host" points at host.mdx, which ` + link,
		`error a.mdx:6:32: link "/up" points at up.mdx, which ` + link,
		`error docs.json:1:`, // the navigation's "secret"
		`error docs.json:1:`, // and "host"
		"error sub/docs.json: " + link,
	}
	if len(got) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", all, len(want))
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem reads %q in:\n%s", w, all)
		}
	}
	for _, page := range []string{"secret", "host"} {
		if w := `navigation names page "` + page + `", but ` + page + ".mdx " + link; !strings.Contains(all, w) {
			t.Errorf("no problem reads %q in:\n%s", w, all)
		}
	}
}
