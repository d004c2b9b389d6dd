package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Limits that keep one tool call from flooding the model's context or the disk.
const (
	maxWriteBytes   = 1 << 20
	maxListEntries  = 1000
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

// schema is the tool's arguments as a JSON Schema object that allows no
// other argument. A strict one is what OpenAI's strict mode requires
// (structured outputs): every argument listed as required, an optional one
// as a type that may be null, which Folio reads as not given.
func (t toolSpec) schema(strict bool) map[string]any {
	s := map[string]any{"type": "object", "properties": t.Properties, "additionalProperties": false}
	if !strict {
		if len(t.Required) > 0 {
			s["required"] = t.Required
		}
		return s
	}
	required := map[string]bool{}
	for _, r := range t.Required {
		required[r] = true
	}
	props := map[string]any{}
	names := []string{}
	for name, p := range t.Properties {
		names = append(names, name)
		prop, _ := p.(map[string]any)
		if required[name] || prop == nil {
			props[name] = p
			continue
		}
		nullable := maps.Clone(prop)
		nullable["type"] = []any{prop["type"], "null"}
		props[name] = nullable
	}
	sort.Strings(names)
	s["properties"], s["required"] = props, names
	return s
}

// tool is one tool the model may call: what it does, its arguments, and
// the method that runs it.
type tool struct {
	name, desc string
	params     []param
	run        func(c *checkout, a args) (string, error)
}

const pathDesc = "File path relative to the repository root."

// tools are the model's hands on the checkout, in the order it is told of them.
var tools = []*tool{
	{name: "list_files", desc: "List the repository's files (recursively) under a directory. Paths are relative to the repository root.",
		params: []param{{name: "path", kind: kindString, desc: "Directory to list; empty, null or omitted for the repository root."}},
		run:    (*checkout).listFiles},
	{name: "read_file", desc: readFileDesc,
		params: []param{
			{name: "path", kind: kindString, desc: pathDesc, required: true},
			{name: "offset", kind: kindInteger, desc: "The first line to show, counting from 1; null or omitted to start at the top."},
			{name: "limit", kind: kindInteger, desc: fmt.Sprintf("How many lines to show; null or omitted for as many as fit (at most %d).", maxReadLines)},
		},
		run: (*checkout).readFile},
	{name: "search_files", desc: searchFilesDesc, params: searchFilesParams, run: (*checkout).searchFiles},
	{name: "write_file", desc: "Create a file or replace its whole content. Parent directories are created.",
		params: []param{
			{name: "path", kind: kindString, desc: pathDesc, required: true},
			{name: "content", kind: kindString, desc: "The complete new content.", required: true},
		},
		run: (*checkout).writeFile},
	{name: "edit_file", desc: editFileDesc, params: editFileParams, run: (*checkout).editFile},
	{name: "move_file", desc: moveFileDesc, params: moveFileParams, run: (*checkout).moveFile},
	{name: "delete_file", desc: "Delete a file of the repository.",
		params: []param{{name: "path", kind: kindString, desc: pathDesc, required: true}},
		run:    (*checkout).deleteFile},
}

// toolSpecs are the tools as the providers describe them to the model.
var toolSpecs = func() []toolSpec {
	var specs []toolSpec
	for _, t := range tools {
		s := toolSpec{Name: t.name, Description: t.desc, Properties: map[string]any{}}
		for _, p := range t.params {
			s.Properties[p.name] = map[string]any{"type": p.kind, "description": p.desc}
			if p.required {
				s.Required = append(s.Required, p.name)
			}
		}
		specs = append(specs, s)
	}
	return specs
}()

func toolNamed(name string) *tool {
	for _, t := range tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

func (t *tool) param(name string) *param {
	for i := range t.params {
		if t.params[i].name == name {
			return &t.params[i]
		}
	}
	return nil
}

// paramList names the tool's arguments: "path, offset and limit".
func (t *tool) paramList() string {
	var names []string
	for _, p := range t.params {
		names = append(names, strconv.Quote(p.name))
	}
	return andList(names)
}

// exampleValues are what a tool's example call fills its arguments with.
var exampleValues = map[string]string{"path": `"guides/quickstart.mdx"`, "query": `"api key"`}

// example is a well-formed call of the tool, with its required arguments.
func (t *tool) example() string {
	var parts []string
	for _, p := range t.params {
		if !p.required {
			continue
		}
		v, ok := exampleValues[p.name]
		if !ok {
			v = `"…"`
		}
		parts = append(parts, strconv.Quote(p.name)+": "+v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func andList(items []string) string {
	switch len(items) {
	case 0:
		return "none"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
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
	t := toolNamed(name)
	if t == nil {
		var names []string
		for _, t := range tools {
			names = append(names, t.name)
		}
		return "", toolErrorf("there is no tool %q; the tools are %s", name, andList(names))
	}
	a, err := parseArgs(t, raw)
	if err != nil {
		return "", err
	}
	return t.run(c, a)
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

func (c *checkout) listFiles(a args) (string, error) {
	rel, err := c.resolve(a.str("path"), true)
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
