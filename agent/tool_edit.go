package agent

import (
	"fmt"
	"path"
	"strings"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/doccheck"
)

func (c *checkout) writeFile(a args) (string, error) {
	content := a.str("content")
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	if len(content) > maxWriteBytes {
		return "", toolErrorf("content is %d bytes; a file may have at most %d", len(content), maxWriteBytes)
	}
	if st, err := c.root.Stat(rel); err == nil && st.IsDir() {
		return "", toolErrorf("%s is a directory", rel)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := c.root.MkdirAll(dir, 0o755); err != nil {
			return "", fsError(dir, err)
		}
	}
	if err := c.root.WriteFile(rel, []byte(content), 0o644); err != nil {
		return "", fsError(rel, err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", rel, len(content)) + c.checkTouched(workspace.Change{Path: rel, Status: "M"}), nil
}

const editFileDesc = "Replace old_string with new_string in a file. old_string must occur exactly once, unless replace_all is true; include surrounding lines to make it unique. " +
	"Copy old_string from read_file's output without the line numbers. When it occurs nowhere exactly, a single place that differs only in whitespace (indentation, spaces, line endings) is edited instead, " +
	"with new_string indented to match; otherwise the closest lines are shown."

var editFileParams = []param{
	{name: "path", kind: kindString, desc: pathDesc, required: true},
	{name: "old_string", kind: kindString, desc: "The text to replace.", required: true},
	{name: "new_string", kind: kindString, desc: "The text to put in its place.", required: true},
	{name: "replace_all", kind: kindBoolean, desc: "Replace every occurrence of old_string; false, null or omitted to require exactly one."},
}

func (c *checkout) editFile(a args) (string, error) {
	old, repl, all := a.str("old_string"), a.str("new_string"), a.bool("replace_all")
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	if old == "" {
		return "", toolErrorf("old_string is empty; use write_file to create or replace a whole file")
	}
	if old == repl {
		return "", toolErrorf("old_string and new_string are the same, so there is nothing to change")
	}
	data, err := c.root.ReadFile(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	text := string(data)
	var spans []span
	tolerant := false
	for i := 0; ; {
		j := strings.Index(text[i:], old)
		if j < 0 {
			break
		}
		spans = append(spans, span{i + j, i + j + len(old), repl})
		i += j + len(old)
	}
	if len(spans) == 0 {
		spans = matchIgnoringWhitespace(text, old, repl)
		tolerant = true
	}
	switch {
	case len(spans) == 0:
		return "", toolErrorf("old_string was not found in %s.%s", rel, closestLines(text, old))
	case len(spans) > 1 && !all:
		how := ""
		if tolerant {
			how = " when whitespace is ignored (it occurs nowhere exactly)"
		}
		return "", toolErrorf("old_string occurs %d times in %s%s, at %s; include more surrounding text so it occurs once, or set replace_all to replace them all", len(spans), rel, how, lineList(text, spans))
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		b.WriteString(s.repl)
		last = s.end
	}
	b.WriteString(text[last:])
	updated := b.String()
	if len(updated) > maxWriteBytes {
		return "", toolErrorf("the edited file would be %d bytes; a file may have at most %d", len(updated), maxWriteBytes)
	}
	if err := c.root.WriteFile(rel, []byte(updated), 0o644); err != nil {
		return "", fsError(rel, err)
	}
	out := fmt.Sprintf("edited %s: replaced %d occurrence", rel, len(spans))
	if len(spans) > 1 {
		out += "s"
	}
	out += " at " + lineList(text, spans)
	if tolerant {
		out += "; old_string matched only once differences in whitespace were ignored, so new_string was indented as the file is"
	}
	return out + c.checkTouched(workspace.Change{Path: rel, Status: "M"}), nil
}

func (c *checkout) deleteFile(a args) (string, error) {
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	st, err := c.root.Lstat(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	if st.IsDir() {
		return "", toolErrorf("%s is a directory; delete its files one by one", rel)
	}
	if err := c.root.Remove(rel); err != nil {
		return "", fsError(rel, err)
	}
	return fmt.Sprintf("deleted %s", rel) + c.checkTouched(workspace.Change{Path: rel, Status: "D"}), nil
}

const moveFileDesc = "Move (rename) a file, and keep the site whole: every link and snippet import that points at it, in every page, is rewritten to its new path in the link's own style; " +
	"the moved page's own relative links are adjusted to its new folder; and navigation entries and redirect destinations in docs.json or mint.json that name it are updated."

var moveFileParams = []param{
	{name: "from", kind: kindString, desc: "The file to move, relative to the repository root.", required: true},
	{name: "to", kind: kindString, desc: "Its new path, relative to the repository root; nothing may be there yet. Parent folders are created.", required: true},
}

func (c *checkout) moveFile(a args) (string, error) {
	from, err := c.resolve(a.str("from"), false)
	if err != nil {
		return "", err
	}
	to, err := c.resolve(a.str("to"), false)
	if err != nil {
		return "", err
	}
	if from == to {
		return "", toolErrorf("from and to are both %s; there is nothing to move", from)
	}
	st, err := c.root.Lstat(from)
	switch {
	case err != nil:
		return "", fsError(from, err)
	case st.IsDir():
		return "", toolErrorf("%s is a directory; move its files one by one", from)
	case !st.Mode().IsRegular():
		return "", toolErrorf("%s is not a regular file (a symbolic link?); only files can be moved", from)
	}
	if _, err := c.root.Lstat(to); err == nil {
		return "", toolErrorf("%s exists already; choose another path, or delete it first if it should be replaced", to)
	}
	plan, err := doccheck.PlanMove(c.root, from, to)
	if err != nil {
		return "", fsError(from, err)
	}
	content, err := c.root.ReadFile(from)
	if err != nil {
		return "", fsError(from, err)
	}
	touched := []workspace.Change{{Path: from, Status: "D"}, {Path: to, Status: "A"}}
	var others []doccheck.FileEdit
	links, pages, entries := 0, []string{}, []string{}
	for _, e := range plan.Edits {
		switch {
		case e.Path == to:
			content = e.Content
		default:
			others = append(others, e)
			touched = append(touched, workspace.Change{Path: e.Path, Status: "M"})
		}
		if e.Links > 0 && e.Path != to {
			links += e.Links
			pages = append(pages, e.Path)
		}
		if e.Entries > 0 {
			entries = append(entries, fmt.Sprintf("%d in %s", e.Entries, e.Path))
		}
	}
	if dir := path.Dir(to); dir != "." {
		if err := c.root.MkdirAll(dir, 0o755); err != nil {
			return "", fsError(dir, err)
		}
	}
	if err := c.root.WriteFile(to, content, st.Mode().Perm()); err != nil {
		return "", fsError(to, err)
	}
	if err := c.root.Remove(from); err != nil {
		return "", fsError(from, err)
	}
	for _, e := range others {
		if err := c.root.WriteFile(e.Path, e.Content, 0o644); err != nil {
			return "", fsError(e.Path, err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "moved %s to %s", from, to)
	if links > 0 {
		fmt.Fprintf(&b, "; rewrote %d links in %s", links, andList(pages))
	} else {
		b.WriteString("; no page linked to it")
	}
	if len(entries) > 0 {
		fmt.Fprintf(&b, "; updated navigation entries and redirects: %s", andList(entries))
	}
	b.WriteString(".")
	if len(plan.Unread) > 0 {
		fmt.Fprintf(&b, " These pages do not compile, so their links were not read; fix any link in them to %s by hand: %s.", from, andList(plan.Unread))
	}
	if isDocPage(from) {
		fmt.Fprintf(&b, " Readers' bookmarks of the old path break unless docs.json has a redirect for it; add one if the page was published.")
	}
	return b.String() + c.checkTouched(touched...), nil
}

// isDocPage reports whether p is a Markdown or MDX page.
func isDocPage(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".mdx"
}
