package codehost

import (
	"strconv"
	"strings"
)

// Statuses of a FileChange (CONTRACT §2, GET .../changes).
const (
	StatusAdded    = "added"
	StatusModified = "modified"
	StatusDeleted  = "deleted"
	StatusRenamed  = "renamed"
)

// Changes is what a job's branch brings to its ref since they parted: the
// answer of GET .../changes and the review page's content.
type Changes struct {
	Base   string       `json:"base"`
	Branch string       `json:"branch"`
	Files  []FileChange `json:"files"`
	Diff   string       `json:"diff"`
}

// Additions and Deletions total the diff.
func (c Changes) Additions() (n int) {
	for _, f := range c.Files {
		n += f.Additions
	}
	return n
}

func (c Changes) Deletions() (n int) {
	for _, f := range c.Files {
		n += f.Deletions
	}
	return n
}

// FileChange is one file of a unified diff.
type FileChange struct {
	Path         string     `json:"path"`
	PreviousPath string     `json:"previousPath,omitempty"` // set when the file was renamed
	Status       string     `json:"status"`                 // added, modified, deleted or renamed
	Additions    int        `json:"additions"`
	Deletions    int        `json:"deletions"`
	Binary       bool       `json:"binary,omitempty"`
	Lines        []DiffLine `json:"-"`
}

// DiffLine is one line of a file's diff. Old and New are line numbers, 0
// where the line does not exist on that side.
type DiffLine struct {
	Kind string // hunk, add, del, ctx or note
	Old  int
	New  int
	Text string
}

// ParseDiff splits git's unified diff into files and numbered lines. Both
// hosts give their diffs to it, so the API and the review page read one way.
func ParseDiff(diff string) []FileChange {
	files := []FileChange{}
	var f *FileChange
	inHunk := false
	oldN, newN := 0, 0
	for _, line := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			files = append(files, FileChange{Status: StatusModified, Path: gitDiffName(line)})
			f, inHunk = &files[len(files)-1], false
			continue
		}
		if f == nil {
			continue
		}
		if !inHunk || strings.HasPrefix(line, "@@ ") {
			switch {
			case strings.HasPrefix(line, "@@ "):
				inHunk = true
				oldN, newN = hunkStarts(line)
				f.Lines = append(f.Lines, DiffLine{Kind: "hunk", Text: line})
			case strings.HasPrefix(line, "new file mode"):
				f.Status = StatusAdded
			case strings.HasPrefix(line, "deleted file mode"):
				f.Status = StatusDeleted
			case strings.HasPrefix(line, "rename from "):
				f.Status, f.PreviousPath = StatusRenamed, strings.TrimPrefix(line, "rename from ")
			case strings.HasPrefix(line, "rename to "):
				f.Path = strings.TrimPrefix(line, "rename to ")
			case strings.HasPrefix(line, "+++ b/"):
				f.Path = strings.TrimPrefix(line, "+++ b/")
			case strings.HasPrefix(line, "Binary files "):
				f.Binary = true
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "+"):
			f.Additions++
			f.Lines = append(f.Lines, DiffLine{Kind: "add", New: newN, Text: line[1:]})
			newN++
		case strings.HasPrefix(line, "-"):
			f.Deletions++
			f.Lines = append(f.Lines, DiffLine{Kind: "del", Old: oldN, Text: line[1:]})
			oldN++
		case strings.HasPrefix(line, `\`):
			f.Lines = append(f.Lines, DiffLine{Kind: "note", Text: strings.TrimSpace(line[1:])})
		default:
			f.Lines = append(f.Lines, DiffLine{Kind: "ctx", Old: oldN, New: newN, Text: strings.TrimPrefix(line, " ")})
			oldN++
			newN++
		}
	}
	return files
}

// gitDiffName reads b/NAME from "diff --git a/NAME b/NAME"; the +++ line
// or a rename line corrects it when there is one.
func gitDiffName(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// hunkStarts reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStarts(line string) (oldN, newN int) {
	for _, field := range strings.Fields(line)[1:] {
		n, _ := strconv.Atoi(strings.SplitN(field[1:], ",", 2)[0])
		switch field[0] {
		case '-':
			oldN = n
		case '+':
			return oldN, n
		}
	}
	return oldN, newN
}
