package doccheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/internal/testenv"
)

// planMove plans moving from to to in a checkout of files and returns each
// edited file's new content.
func planMove(t *testing.T, files map[string]string, from, to string) (map[string]string, Move) {
	t.Helper()
	root, err := os.OpenRoot(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	mv, err := PlanMove(root, from, to)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range mv.Edits {
		got[e.Path] = string(e.Content)
	}
	return got, mv
}

func TestPlanMove(t *testing.T) {
	files := map[string]string{
		"docs.json": `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},` + "\n" +
			`  "navigation": {"groups": [{"group": "Start", "pages": ["index", "guides/old", "guides/sibling", {"group": "API", "pages": ["api/ref"]}]}]},` + "\n" +
			`  "redirects": [{"source": "/legacy", "destination": "/guides/old#intro"}, {"source": "/other", "destination": "/guides/sibling"}]}`,
		"index.mdx":      "---\ntitle: Home\n---\n\nStart with [the old guide](/guides/old).\n",
		"images/a.png":   "png",
		"snippets/s.mdx": "A snippet.\n",
		"api/ref.mdx":    "---\ntitle: Ref\n---\n\nSee [it](../guides/old \"The guide\").\n",
		"guides/old.mdx": "---\ntitle: Old\n---\nimport Snip from '/snippets/s.mdx';\n\n" +
			"[Sibling](./sibling), [home](../index), [ref](/api/ref), [me](./old#x), [gone](./missing).\n\n" +
			"<Card title=\"S\" href=\"./sibling\" />\n\n![A](../images/a.png)\n\n<Snip />\n",
		"guides/sibling.mdx": "---\ntitle: Sibling\n---\n\n" +
			"[a](./old), [b](./old.mdx#a), [c](/guides/old), [d](guides/old?x=1), [e][r], [f](/guides/older).\n\n" +
			"<Card title=\"Old\" href=\"/guides/old\" />\n\n[r]: /guides/old\n",
		"guides/older.mdx": "---\ntitle: Older\n---\n\nNot the old page.\n",
	}
	got, mv := planMove(t, files, "guides/old.mdx", "reference/new/page.mdx")
	want := map[string]string{
		"reference/new/page.mdx": "---\ntitle: Old\n---\nimport Snip from '/snippets/s.mdx';\n\n" +
			"[Sibling](../../guides/sibling), [home](../../index), [ref](/api/ref), [me](./page#x), [gone](./missing).\n\n" +
			"<Card title=\"S\" href=\"../../guides/sibling\" />\n\n![A](../../images/a.png)\n\n<Snip />\n",
		"guides/sibling.mdx": "---\ntitle: Sibling\n---\n\n" +
			"[a](../reference/new/page), [b](../reference/new/page.mdx#a), [c](/reference/new/page), [d](reference/new/page?x=1), [e][r], [f](/guides/older).\n\n" +
			"<Card title=\"Old\" href=\"/reference/new/page\" />\n\n[r]: /reference/new/page\n",
		"index.mdx":   "---\ntitle: Home\n---\n\nStart with [the old guide](/reference/new/page).\n",
		"api/ref.mdx": "---\ntitle: Ref\n---\n\nSee [it](../reference/new/page \"The guide\").\n",
		"docs.json": `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},` + "\n" +
			`  "navigation": {"groups": [{"group": "Start", "pages": ["index", "reference/new/page", "guides/sibling", {"group": "API", "pages": ["api/ref"]}]}]},` + "\n" +
			`  "redirects": [{"source": "/legacy", "destination": "/reference/new/page#intro"}, {"source": "/other", "destination": "/guides/sibling"}]}`,
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s after the move =\n%s\nwant\n%s", p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s edited, want it untouched:\n%s", p, got[p])
		}
	}
	counts := map[string][2]int{}
	for _, e := range mv.Edits {
		counts[e.Path] = [2]int{e.Links, e.Entries}
	}
	if counts["guides/sibling.mdx"] != [2]int{6, 0} || counts["docs.json"] != [2]int{0, 2} {
		t.Errorf("counts = %v, want 6 links in guides/sibling.mdx and 2 entries in docs.json", counts)
	}

	// The site after the move has no error it did not have before.
	dir := writeFiles(t, files)
	os.Remove(filepath.Join(dir, "guides", "old.mdx"))
	testenv.WriteFiles(t, dir, got)
	changes := []workspace.Change{{Path: "guides/old.mdx", Status: "D"}}
	for p := range got {
		changes = append(changes, workspace.Change{Path: p, Status: "A"})
	}
	for _, p := range checkDir(t, dir, changes) {
		if p.Severity == SeverityError && p.Message != `link "./missing" points at a page that does not exist` {
			t.Errorf("after the move: %s", p)
		}
	}
}

// An image moves too: links and src attributes to it follow; a docs root
// in a folder resolves root-relative links and navigation from there.
func TestPlanMoveImageAndDocsFolder(t *testing.T) {
	got, _ := planMove(t, map[string]string{
		"docs/docs.json":       validDocs(`{"pages":["guides/a","b"]}`),
		"docs/guides/a.mdx":    "---\ntitle: A\n---\n\n![Logo](/images/logo.png) <img src=\"../images/logo.png\" /> [b](/b)\n",
		"docs/b.mdx":           "---\ntitle: B\n---\n\n[a](/guides/a)\n",
		"docs/images/logo.png": "png",
	}, "docs/images/logo.png", "docs/media/brand/logo.png")
	if want := "---\ntitle: A\n---\n\n![Logo](/media/brand/logo.png) <img src=\"../media/brand/logo.png\" /> [b](/b)\n"; got["docs/guides/a.mdx"] != want || len(got) != 1 {
		t.Errorf("edits = %q, want only docs/guides/a.mdx:\n%s", got, want)
	}

	got, _ = planMove(t, map[string]string{
		"docs/docs.json":    validDocs(`{"pages":["guides/a","b"]}`),
		"docs/guides/a.mdx": "---\ntitle: A\n---\n\n[b](/b)\n",
		"docs/b.mdx":        "---\ntitle: B\n---\n\n[a](/guides/a)\n",
	}, "docs/guides/a.mdx", "docs/a.mdx")
	if got["docs/b.mdx"] != "---\ntitle: B\n---\n\n[a](/a)\n" || got["docs/docs.json"] != validDocs(`{"pages":["a","b"]}`) || got["docs/a.mdx"] != "---\ntitle: A\n---\n\n[b](/b)\n" {
		t.Errorf("edits = %q", got)
	}
}
