package components

import (
	"context"
	"strings"
	"testing"

	"github.com/folio-docs/folio/db"
)

const sampleDiff = `diff --git a/guide.md b/guide.md
index 1111111..2222222 100644
--- a/guide.md
+++ b/guide.md
@@ -3,4 +3,4 @@ title: Guide
 Intro.
--- a rule line, deleted
+<script>alert(1)</script>
 Outro.
\ No newline at end of file
diff --git a/old.md b/new.md
similarity index 90%
rename from old.md
rename to new.md
diff --git a/gone.md b/gone.md
deleted file mode 100644
index 3333333..0000000
--- a/gone.md
+++ /dev/null
@@ -1 +0,0 @@
-bye
`

func TestParseDiff(t *testing.T) {
	files := ParseDiff(sampleDiff)
	if len(files) != 3 {
		t.Fatalf("got %d files, want 3: %+v", len(files), files)
	}
	g := files[0]
	if g.Name != "guide.md" || g.Change != "modified" || g.Added != 1 || g.Deleted != 1 {
		t.Errorf("guide.md parsed as %+v", g)
	}
	// A deleted line that starts with "--" is content, not a header.
	want := []DiffLine{
		{Kind: "hunk", Text: "@@ -3,4 +3,4 @@ title: Guide"},
		{Kind: "ctx", Old: 3, New: 3, Text: "Intro."},
		{Kind: "del", Old: 4, Text: "-- a rule line, deleted"},
		{Kind: "add", New: 4, Text: "<script>alert(1)</script>"},
		{Kind: "ctx", Old: 5, New: 5, Text: "Outro."},
		{Kind: "note", Text: "No newline at end of file"},
	}
	if len(g.Lines) != len(want) {
		t.Fatalf("guide.md lines %+v", g.Lines)
	}
	for i := range want {
		if g.Lines[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, g.Lines[i], want[i])
		}
	}
	if r := files[1]; r.Name != "new.md" || r.OldName != "old.md" || r.Change != "renamed" {
		t.Errorf("rename parsed as %+v", r)
	}
	if d := files[2]; d.Name != "gone.md" || d.Change != "deleted" || d.Deleted != 1 || d.Lines[1].Old != 1 {
		t.Errorf("deletion parsed as %+v", d)
	}
}

func TestDiffIsEscaped(t *testing.T) {
	var b strings.Builder
	v := ChangesView{ProjectID: "p", Job: db.Job{ID: "j", Status: db.JobCompleted, Repository: "/srv/docs", Ref: "main", Branch: "folio/j"},
		Local: true, Files: ParseDiff(sampleDiff)}
	if err := JobChangesPage(Shell{Title: "Review", Project: &db.Project{ID: "p"}}, v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script>alert") || !strings.Contains(b.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("a diff line reached the page unescaped")
	}
	if !strings.Contains(b.String(), `id="merge"`) {
		t.Error("a completed local job's review page offers no merge")
	}
}
