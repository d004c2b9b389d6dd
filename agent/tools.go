package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Limits that keep one tool call from flooding the model's context or the disk.
const (
	maxReadBytes    = 200 << 10
	maxWriteBytes   = 1 << 20
	maxListEntries  = 1000
	maxSearchHits   = 100
	maxSearchFile   = 1 << 20
	maxSearchLine   = 240
	maxToolArgBytes = 2 << 20
)

// toolSpec describes a tool to the model: a name, what it does, and its
// arguments as a JSON Schema object.
type toolSpec struct {
	Name        string
	Description string
	Properties  map[string]any
	Required    []string
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

var toolSpecs = []toolSpec{
	{"list_files", "List the repository's files (recursively) under a directory. Paths are relative to the repository root.",
		map[string]any{"path": str("Directory to list; empty or omitted for the repository root.")}, nil},
	{"read_file", "Read a text file of the repository.",
		map[string]any{"path": str("File path relative to the repository root.")}, []string{"path"}},
	{"search_files", "Search every text file for a string (case-insensitive). Returns path:line: text for each match.",
		map[string]any{"query": str("Text to look for.")}, []string{"query"}},
	{"write_file", "Create a file or replace its whole content. Parent directories are created.",
		map[string]any{"path": str("File path relative to the repository root."), "content": str("The complete new content.")}, []string{"path", "content"}},
	{"edit_file", "Replace one exact occurrence of old_string with new_string in a file. old_string must occur exactly once; include surrounding lines to make it unique.",
		map[string]any{"path": str("File path relative to the repository root."), "old_string": str("Exact text to replace."), "new_string": str("Replacement text.")}, []string{"path", "old_string", "new_string"}},
	{"delete_file", "Delete a file of the repository.",
		map[string]any{"path": str("File path relative to the repository root.")}, []string{"path"}},
}

// toolError is a refusal or failure the model is told about and can recover from.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func toolErrorf(format string, args ...any) error { return &toolError{fmt.Sprintf(format, args...)} }

// checkout is the run's repository as the tools see it: every path is
// confined to it, and .git is out of bounds.
type checkout struct {
	dir  string // real path (symlinks resolved)
	root *os.Root
}

func openCheckout(dir string) (*checkout, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("agent: unable to resolve the checkout: %w", err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("agent: unable to open the checkout: %w", err)
	}
	return &checkout{dir: real, root: root}, nil
}

func (c *checkout) Close() error { return c.root.Close() }

// resolve turns a path the model gave into a clean relative one, refusing
// anything that could leave the checkout or touch git's own files. os.Root
// enforces the same again when the file is opened, so a symlink swapped in
// between cannot escape either.
func (c *checkout) resolve(p string, allowRoot bool) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" || p == "." || p == "./" {
		if allowRoot {
			return ".", nil
		}
		return "", toolErrorf("a path is required")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", toolErrorf("path %q is absolute; give a path relative to the repository root", p)
	}
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "", toolErrorf("path %q leaves the repository; \"..\" is not allowed", p)
		}
	}
	rel := path.Clean(filepath.ToSlash(p))
	if isGitPath(rel) {
		return "", toolErrorf("path %q is inside .git, which the tools may not touch", p)
	}
	// Follow symlinks along the part that exists: it must stay inside, and out of .git.
	existing := filepath.Join(c.dir, filepath.FromSlash(rel))
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing || len(parent) < len(c.dir) {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", toolErrorf("path %q cannot be resolved: %v", p, errors.Unwrap(err))
	}
	inside, err := filepath.Rel(c.dir, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return "", toolErrorf("path %q leads outside the repository through a symbolic link", p)
	}
	if isGitPath(filepath.ToSlash(inside)) {
		return "", toolErrorf("path %q leads into .git through a symbolic link", p)
	}
	return rel, nil
}

func isGitPath(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.EqualFold(seg, ".git") {
			return true
		}
	}
	return false
}

// call runs one tool. A *toolError goes back to the model as the result;
// any other error stops the run.
func (c *checkout) call(name string, raw json.RawMessage) (string, error) {
	if len(raw) > maxToolArgBytes {
		return "", toolErrorf("arguments are too large (%d bytes; at most %d)", len(raw), maxToolArgBytes)
	}
	var args struct {
		Path      *string `json:"path"`
		Query     *string `json:"query"`
		Content   *string `json:"content"`
		OldString *string `json:"old_string"`
		NewString *string `json:"new_string"`
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", toolErrorf("arguments are not a valid JSON object: %v", err)
		}
	}
	need := func(v *string, field string) (string, error) {
		if v == nil {
			return "", toolErrorf("argument %q is required", field)
		}
		return *v, nil
	}
	opt := func(v *string) string {
		if v == nil {
			return ""
		}
		return *v
	}
	switch name {
	case "list_files":
		return c.listFiles(opt(args.Path))
	case "read_file":
		p, err := need(args.Path, "path")
		if err != nil {
			return "", err
		}
		return c.readFile(p)
	case "search_files":
		q, err := need(args.Query, "query")
		if err != nil {
			return "", err
		}
		return c.searchFiles(q)
	case "write_file":
		p, err := need(args.Path, "path")
		if err != nil {
			return "", err
		}
		content, err := need(args.Content, "content")
		if err != nil {
			return "", err
		}
		return c.writeFile(p, content)
	case "edit_file":
		p, err := need(args.Path, "path")
		if err != nil {
			return "", err
		}
		old, err := need(args.OldString, "old_string")
		if err != nil {
			return "", err
		}
		repl, err := need(args.NewString, "new_string")
		if err != nil {
			return "", err
		}
		return c.editFile(p, old, repl)
	case "delete_file":
		p, err := need(args.Path, "path")
		if err != nil {
			return "", err
		}
		return c.deleteFile(p)
	}
	return "", toolErrorf("there is no tool %q; the tools are list_files, read_file, search_files, write_file, edit_file and delete_file", name)
}

// fsError turns a file system error into something the model can act on.
func fsError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return toolErrorf("%s does not exist", p)
	case errors.Is(err, fs.ErrPermission):
		return toolErrorf("%s may not be accessed", p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return toolErrorf("%s: %v", p, pe.Err)
	}
	return toolErrorf("%s: %v", p, err)
}

func (c *checkout) listFiles(p string) (string, error) {
	rel, err := c.resolve(p, true)
	if err != nil {
		return "", err
	}
	if st, err := c.root.Stat(rel); err != nil {
		return "", fsError(rel, err)
	} else if !st.IsDir() {
		return "", toolErrorf("%s is a file, not a directory; use read_file", rel)
	}
	var files []string
	truncated := false
	err = fs.WalkDir(c.root.FS(), rel, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable entry is left out, not fatal
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		if len(files) == maxListEntries {
			truncated = true
			return fs.SkipAll
		}
		files = append(files, name)
		return nil
	})
	if err != nil {
		return "", fsError(rel, err)
	}
	if len(files) == 0 {
		return "(no files)", nil
	}
	sort.Strings(files)
	out := strings.Join(files, "\n")
	if truncated {
		out += fmt.Sprintf("\n… listing stopped at %d files; list a subdirectory to see more", maxListEntries)
	}
	return out, nil
}

func (c *checkout) readFile(p string) (string, error) {
	rel, err := c.resolve(p, false)
	if err != nil {
		return "", err
	}
	f, err := c.root.Open(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fsError(rel, err)
	}
	if st.IsDir() {
		return "", toolErrorf("%s is a directory; use list_files", rel)
	}
	buf := make([]byte, maxReadBytes+1)
	n, _ := f.Read(buf)
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	data := buf[:n]
	if bytes.IndexByte(data, 0) >= 0 {
		return "", toolErrorf("%s is a binary file (%d bytes) and cannot be read as text", rel, st.Size())
	}
	if n > maxReadBytes {
		return string(data[:maxReadBytes]) + fmt.Sprintf("\n… truncated: %s has %d bytes, only the first %d are shown", rel, st.Size(), maxReadBytes), nil
	}
	return string(data), nil
}

func (c *checkout) searchFiles(query string) (string, error) {
	if strings.TrimSpace(query) == "" {
		return "", toolErrorf("query is empty")
	}
	needle := []byte(strings.ToLower(query))
	var hits []string
	err := fs.WalkDir(c.root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxSearchFile {
			return nil
		}
		data, err := c.root.ReadFile(name)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || !bytes.Contains(bytes.ToLower(data), needle) {
			return nil
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), maxSearchFile)
		for line := 1; sc.Scan(); line++ {
			if !bytes.Contains(bytes.ToLower(sc.Bytes()), needle) {
				continue
			}
			text := strings.TrimSpace(sc.Text())
			if len(text) > maxSearchLine {
				text = text[:maxSearchLine] + "…"
			}
			hits = append(hits, fmt.Sprintf("%s:%d: %s", name, line, text))
			if len(hits) > maxSearchHits {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		return "", toolErrorf("search failed: %v", err)
	}
	if len(hits) == 0 {
		return fmt.Sprintf("no matches for %q", query), nil
	}
	if len(hits) > maxSearchHits {
		return strings.Join(hits[:maxSearchHits], "\n") + fmt.Sprintf("\n… more than %d matches; search for something more specific", maxSearchHits), nil
	}
	return strings.Join(hits, "\n"), nil
}

func (c *checkout) writeFile(p, content string) (string, error) {
	rel, err := c.resolve(p, false)
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
	return fmt.Sprintf("wrote %s (%d bytes)", rel, len(content)), nil
}

func (c *checkout) editFile(p, old, repl string) (string, error) {
	rel, err := c.resolve(p, false)
	if err != nil {
		return "", err
	}
	if old == "" {
		return "", toolErrorf("old_string is empty; use write_file to create or replace a whole file")
	}
	data, err := c.root.ReadFile(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	switch n := strings.Count(string(data), old); n {
	case 0:
		return "", toolErrorf("old_string was not found in %s; read the file and copy the text exactly", rel)
	case 1:
	default:
		return "", toolErrorf("old_string occurs %d times in %s; include more surrounding text so it occurs once", n, rel)
	}
	updated := strings.Replace(string(data), old, repl, 1)
	if len(updated) > maxWriteBytes {
		return "", toolErrorf("the edited file would be %d bytes; a file may have at most %d", len(updated), maxWriteBytes)
	}
	if err := c.root.WriteFile(rel, []byte(updated), 0o644); err != nil {
		return "", fsError(rel, err)
	}
	return fmt.Sprintf("edited %s", rel), nil
}

func (c *checkout) deleteFile(p string) (string, error) {
	rel, err := c.resolve(p, false)
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
	return fmt.Sprintf("deleted %s", rel), nil
}
