package codehost

import (
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
)

func TestParseDiff(t *testing.T) {
	files := ParseDiff(testenv.SampleDiff)
	if len(files) != 4 {
		t.Fatalf("got %d files, want 4: %+v", len(files), files)
	}
	g := files[0]
	if g.Path != "guide.md" || g.Status != StatusModified || g.Additions != 1 || g.Deletions != 1 {
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
	if r := files[1]; r.Path != "new.md" || r.PreviousPath != "old.md" || r.Status != StatusRenamed {
		t.Errorf("rename parsed as %+v", r)
	}
	if d := files[2]; d.Path != "gone.md" || d.Status != StatusDeleted || d.Deletions != 1 || d.Lines[1].Old != 1 {
		t.Errorf("deletion parsed as %+v", d)
	}
	if a := files[3]; a.Path != "new.md" || a.Status != StatusAdded || a.Additions != 2 || a.Lines[2].New != 2 {
		t.Errorf("addition parsed as %+v", a)
	}
	c := Changes{Files: files}
	if c.Additions() != 3 || c.Deletions() != 2 {
		t.Errorf("totals +%d -%d, want +3 -2", c.Additions(), c.Deletions())
	}
}

func TestParseDiffOfNothingIsNoFiles(t *testing.T) {
	if files := ParseDiff(""); files == nil || len(files) != 0 {
		t.Fatalf("ParseDiff(\"\") = %#v, want an empty, non-nil list (JSON [])", files)
	}
}
