package doccheck

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
)

// FileEdit is a file's new content after a page moves: the page itself at
// its new path, a page whose links to it were rewritten, or a configuration
// file whose navigation or redirects named it.
type FileEdit struct {
	Path    string
	Content []byte
	Links   int // links and imports rewritten
	Entries int // navigation entries and redirect destinations rewritten
}

// Move is what moving one file of the checkout takes elsewhere.
type Move struct {
	Edits []FileEdit
	// Unread are pages whose links could not be read because they do not
	// compile; a link in them to the moved file is left as it was.
	Unread []string
}

// PlanMove works out, before the file moves, the edits that keep the site
// whole when from (a page, a snippet, an image...) becomes to: every link
// and snippet import that resolves to from, written again in its own style
// (root-relative, bare or relative, extension and #fragment kept); the moved
// page's own relative links, which its new folder would otherwise change;
// and, for a page, each navigation entry and redirect destination naming
// it. It changes nothing; the caller writes the edits. The moved page's
// edit, at to, is there whenever from is a page that compiles.
func PlanMove(root *os.Root, from, to string) (Move, error) {
	r := newRepo(root)
	var mv Move
	if ok, err := r.isFile(from); !ok {
		if err == nil {
			err = fs.ErrNotExist
		}
		return mv, err
	}
	// Every page and snippet of the checkout may link to from.
	var pages []string
	_ = fs.WalkDir(r.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if isPage(p) && d.Type().IsRegular() {
			pages = append(pages, p)
		}
		return nil
	})
	for _, p := range pages {
		data, err := r.read(p)
		if err != nil {
			continue
		}
		_, body := checkFrontmatter(p, data)
		d := parseMDX(data, body)
		if len(checkMDX(p, d)) > 0 {
			if p == from || bytes.Contains(data, []byte(strings.TrimSuffix(path.Base(from), path.Ext(from)))) {
				mv.Unread = append(mv.Unread, p)
			}
			continue
		}
		at := p // where the page will be, which relative links start from
		if p == from {
			at = to
		}
		rewrites := map[string]string{}
		for _, target := range pageTargets(d) {
			if nt, ok := movedTarget(r, p, at, target, from, to); ok && nt != target {
				rewrites[target] = nt
			}
		}
		if len(rewrites) == 0 && p != from {
			continue
		}
		content, n := rewriteTargets(data, rewrites)
		mv.Edits = append(mv.Edits, FileEdit{Path: at, Content: content, Links: n})
	}
	if isPage(from) {
		for _, nav := range findNavFiles(r) {
			if e, ok := moveNavEntries(r, nav, from, to); ok {
				mv.Edits = append(mv.Edits, e)
			}
		}
	}
	sort.Slice(mv.Edits, func(i, j int) bool { return mv.Edits[i].Path < mv.Edits[j].Path })
	return mv, nil
}

// pageTargets are the link targets and snippet import paths of a page.
func pageTargets(d *mdxDoc) []string {
	var out []string
	for _, l := range d.links() {
		out = append(out, l.target)
	}
	for _, b := range d.esm {
		for _, m := range importFrom.FindAllSubmatch(d.src[b.start:b.end], -1) {
			out = append(out, string(m[1]))
		}
	}
	return out
}

// movedTarget is target, written in page p, as it must be written once
// from has become to and p is at at; ok is false for a target that names
// neither from nor, in the moved page, anything its move would break.
func movedTarget(r *repo, p, at, target, from, to string) (string, bool) {
	t, _, ok := internalTarget(target)
	if !ok || t == "" {
		return "", false
	}
	rest := suffixOf(target) // ?query#fragment as written
	root := docsRoot(r, p)
	candidate, inside := resolveLink(root, p, t)
	if !inside {
		return "", false
	}
	found, exists, _ := findTarget(r, candidate)
	relative := strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || t == "." || t == ".."
	switch {
	case exists && found == from:
		// Name to as the link named from: with or without the extension.
		dest := to
		if found != strings.TrimSuffix(candidate, "/") {
			dest = strings.TrimSuffix(to, path.Ext(to))
			if strings.HasSuffix(found, "/index"+path.Ext(found)) && path.Base(dest) == "index" {
				dest = path.Dir(dest)
			}
		}
		return writeTarget(t, root, at, dest) + rest, true
	case p == from && relative && exists:
		// The moved page's relative link to anything else: same file, new folder.
		dest := found
		if found != strings.TrimSuffix(candidate, "/") {
			dest = strings.TrimSuffix(candidate, "/")
		}
		return writeTarget(t, root, at, dest) + rest, true
	}
	return "", false
}

// suffixOf is the ?query and #fragment part of a link as written.
func suffixOf(target string) string {
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		return target[i:]
	}
	return ""
}

// writeTarget writes a link to dest (a path from the checkout's root) from
// a page at at, in the style of the link it replaces: /root-relative, bare
// (also from the docs root) or ./relative.
func writeTarget(old, root, at, dest string) string {
	switch {
	case strings.HasPrefix(old, "./") || strings.HasPrefix(old, "../") || old == "." || old == "..":
		rel := relPath(path.Dir(at), dest)
		if !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		return rel
	case strings.HasPrefix(old, "/"):
		return "/" + relPath(root, dest)
	}
	return relPath(root, dest)
}

// relPath is target relative to the folder dir, both slash-separated from
// the checkout's root ("" or "." for the root itself).
func relPath(dir, target string) string {
	if dir == "." {
		dir = ""
	}
	var up []string
	for dir != "" && target != dir && !strings.HasPrefix(target, dir+"/") {
		up = append(up, "..")
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			dir = dir[:i]
		} else {
			dir = ""
		}
	}
	rest := target
	if dir != "" {
		rest = strings.TrimPrefix(strings.TrimPrefix(target, dir), "/")
	}
	return path.Join(append(up, rest)...)
}

// rewriteTargets writes each link target in rewrites anew wherever the page
// uses it as a link, image or import: ](target, ]: target, href=, src=, from.
func rewriteTargets(data []byte, rewrites map[string]string) ([]byte, int) {
	n := 0
	for old, nw := range rewrites {
		re := regexp.MustCompile("(?m)(\\]\\(\\s*<?|\\]:\\s*<?|\\b(?:href|src)\\s*=\\s*\\{?\\s*[\"'`]|(?:\\bfrom|^import)\\s*[\"'])" + regexp.QuoteMeta(old) + "([\\s)>\"'`}]|$)")
		data = re.ReplaceAllFunc(data, func(m []byte) []byte {
			n++
			sub := re.FindSubmatch(m)
			return bytes.Join([][]byte{sub[1], []byte(nw), sub[2]}, nil)
		})
	}
	return data, n
}

// moveNavEntries rewrites, in one configuration file, the navigation
// entries and redirect destinations that name the page from.
func moveNavEntries(r *repo, nav, from, to string) (FileEdit, bool) {
	data, err := r.read(nav)
	if err != nil {
		return FileEdit{}, false
	}
	v, _, err := parseJSONPos(data)
	if err != nil || v.kind != jsonObject {
		return FileEdit{}, false
	}
	base := path.Dir(nav)
	if base == "." {
		base = ""
	}
	fromPage := strings.TrimSuffix(from, path.Ext(from))
	toPage := relPath(base, strings.TrimSuffix(to, path.Ext(to)))
	if base != "" && !strings.HasPrefix(fromPage, base+"/") {
		return FileEdit{}, false
	}
	type change struct {
		v    *jsonValue
		text string
	}
	var changes []change
	names := func(s string) bool { return path.Join(base, strings.Trim(s, "/")) == fromPage }
	var walk func(v *jsonValue, inPages bool)
	walk = func(v *jsonValue, inPages bool) {
		switch v.kind {
		case jsonString:
			if inPages && names(v.str) {
				nw := toPage
				if strings.HasPrefix(v.str, "/") {
					nw = "/" + nw
				}
				changes = append(changes, change{v, nw})
			}
		case jsonArray:
			for _, it := range v.items {
				walk(it, inPages)
			}
		case jsonObject:
			for _, m := range v.members {
				walk(m.val, m.key == "pages")
			}
		}
	}
	walk(v.get("navigation"), path.Base(nav) == "mint.json")
	for _, rd := range itemsOf(v.get("redirects")) {
		if d := rd.get("destination"); d != nil && d.kind == jsonString && strings.HasPrefix(d.str, "/") && names(strings.TrimSuffix(d.str, suffixOf(d.str))) {
			changes = append(changes, change{d, "/" + toPage + suffixOf(d.str)})
		}
	}
	if len(changes) == 0 {
		return FileEdit{}, false
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].v.off > changes[j].v.off })
	out := append([]byte(nil), data...)
	for _, c := range changes {
		end := stringTokenEnd(out, c.v.off)
		if end < 0 {
			return FileEdit{}, false
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(c.text) // a string into a buffer: cannot fail
		out = append(out[:c.v.off], append(bytes.TrimSpace(buf.Bytes()), out[end:]...)...)
	}
	return FileEdit{Path: nav, Content: out, Entries: len(changes)}, true
}

// stringTokenEnd is the offset just past the JSON string that starts at
// off, or -1.
func stringTokenEnd(data []byte, off int) int {
	if off >= len(data) || data[off] != '"' {
		return -1
	}
	for i := off + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
