package doccheck

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// Links resolve as `mint broken-links` resolves them: a path starting with
// / or with neither / nor . from the docs root (the folder of docs.json),
// ./ and ../ from the page's folder. A target is a page (with .mdx or .md
// added), any other file (an image), the docs root itself, or the source of
// a redirect. A #anchor that names no heading of its page builds, so it is
// a warning, as `mint broken-links --check-anchors` reports it.

// pageLink is one link or image of a page, with where it is written.
type pageLink struct {
	target string
	off    int
	// unchecked links are ones `mint broken-links` does not look at
	// (reference-style links, hrefs written as expressions): a broken one
	// builds, so it is a warning.
	unchecked bool
}

// links lists the page's Markdown links and images, and the href and src
// attributes of its JSX tags.
func (d *mdxDoc) links() []pageLink {
	var out []pageLink
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			out = append(out, pageLink{target: string(n.Destination), off: d.nodeOffset(n), unchecked: !d.inlineLink(n)})
		case *ast.Image:
			out = append(out, pageLink{target: string(n.Destination), off: d.nodeOffset(n)})
		}
		return ast.WalkContinue, nil
	})
	for _, t := range d.tags {
		for _, key := range []string{"href", "src"} {
			if a, ok := t.attrs[key]; ok && a.value != "" {
				out = append(out, pageLink{target: a.value, off: a.off, unchecked: a.expr})
			}
		}
	}
	return out
}

// inlineLink reports whether a link is written inline, [text](url), rather
// than by reference, [text][name] with the url defined elsewhere.
func (d *mdxDoc) inlineLink(n *ast.Link) bool {
	last := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			last = t.Segment.Stop
		}
		return ast.WalkContinue, nil
	})
	if last < 0 {
		return true
	}
	i := last
	for i < len(d.flat) && d.flat[i] != ']' {
		i++
	}
	return i+1 < len(d.flat) && d.flat[i+1] == '('
}

// nodeOffset is where an inline node's text starts in the page (its label,
// for a link), or where its paragraph starts.
func (d *mdxDoc) nodeOffset(n ast.Node) int {
	for c := n.FirstChild(); c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return max(d.toSrc[t.Segment.Start]-1, 0)
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return d.toSrc[p.Lines().At(0).Start]
		}
	}
	return 0
}

func (d *mdxDoc) problemAt(p string, off int, severity, format string, args ...any) Problem {
	line, col := lineCol(d.src, off)
	return Problem{Path: p, Line: line, Column: col, Severity: severity, Message: fmt.Sprintf(format, args...)}
}

func checkLinks(r *repo, p string, d *mdxDoc) []Problem {
	root := docsRoot(r, p)
	redirects := redirectSources(r, root)
	var problems []Problem
	seen := map[string]bool{}
	for _, l := range d.links() {
		if seen[l.target] {
			continue
		}
		seen[l.target] = true
		target, fragment, ok := internalTarget(l.target)
		if !ok {
			continue
		}
		if target == "" { // #anchor on this page
			if fragment != "" && !hasAnchor(d, fragment) {
				problems = append(problems, d.problemAt(p, l.off, SeverityWarning, "link %q names no heading of this page", l.target))
			}
			continue
		}
		candidate, inside := resolveLink(root, p, target)
		if !inside {
			problems = append(problems, d.problemAt(p, l.off, SeverityError, "link %q points outside the docs", l.target))
			continue
		}
		file, found, err := findTarget(r, candidate)
		if errors.Is(err, errLinkOutside) {
			problems = append(problems, d.problemAt(p, l.off, SeverityError, "link %q points at %s, which %v", l.target, file, err))
			continue
		}
		if !found && !redirects.match("/"+strings.TrimPrefix(strings.TrimPrefix(candidate, root), "/")) {
			if l.unchecked {
				problems = append(problems, d.problemAt(p, l.off, SeverityWarning, "link %q points at a page that does not exist (the build does not check links written this way, but readers will find it broken)", l.target))
			} else {
				problems = append(problems, d.problemAt(p, l.off, SeverityError, "link %q points at a page that does not exist", l.target))
			}
			continue
		}
		if fragment != "" && found && isPage(file) {
			if data, err := r.read(file); err == nil {
				_, body := checkFrontmatter(file, data)
				if !hasAnchor(parseMDX(data, body), fragment) {
					problems = append(problems, d.problemAt(p, l.off, SeverityWarning, "link %q: %s has no heading #%s", l.target, file, fragment))
				}
			}
		}
	}
	return problems
}

// internalTarget splits a link into path and #fragment, and reports
// whether it points into the docs at all (not a URL with a scheme).
func internalTarget(t string) (target, fragment string, ok bool) {
	if strings.HasPrefix(t, "//") {
		return "", "", false
	}
	if u, err := url.Parse(t); err != nil || u.Scheme != "" {
		return "", "", false
	}
	t, fragment, _ = strings.Cut(t, "#")
	t, _, _ = strings.Cut(t, "?")
	if un, err := url.PathUnescape(t); err == nil {
		t = un
	}
	if un, err := url.PathUnescape(fragment); err == nil {
		fragment = un
	}
	return t, fragment, true
}

// resolveLink turns a link target into a path in the checkout, and reports
// whether it stays inside the docs root.
func resolveLink(root, p, target string) (string, bool) {
	var joined string
	if strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") || target == "." || target == ".." {
		joined = path.Join(path.Dir(p), target)
	} else {
		joined = path.Join(root, strings.TrimPrefix(target, "/"))
	}
	if root != "" {
		if joined != root && !strings.HasPrefix(joined, root+"/") {
			return "", false
		}
	} else if joined == ".." || strings.HasPrefix(joined, "../") {
		return "", false
	}
	return joined, true
}

// findTarget finds the file a resolved link names: the file itself, the
// page with .mdx or .md added, or a folder's index page. When none is a
// file but one is a symbolic link leading outside, that one is returned
// with errLinkOutside.
func findTarget(r *repo, candidate string) (string, bool, error) {
	candidate = strings.TrimSuffix(candidate, "/")
	if candidate == "" || candidate == "." {
		candidate = "index"
	}
	link := ""
	for _, c := range []string{candidate, candidate + ".mdx", candidate + ".md", candidate + "/index.mdx", candidate + "/index.md"} {
		found, err := r.isFile(c)
		if found {
			return c, true, nil
		}
		if errors.Is(err, errLinkOutside) && link == "" {
			link = c
		}
	}
	if link != "" {
		return link, false, errLinkOutside
	}
	return "", false, nil
}

// redirectList is the "source" paths of a configuration's redirects.
type redirectList []string

func redirectSources(r *repo, root string) redirectList {
	var list redirectList
	for _, nav := range navFiles {
		data, err := r.read(path.Join(root, nav))
		if err != nil {
			continue // none, or a link checkConfig reports
		}
		v, _, err := parseJSONPos(data)
		if err != nil {
			continue
		}
		if r := v.get("redirects"); r != nil {
			for _, item := range r.items {
				if s := item.get("source"); s != nil && s.kind == jsonString {
					list = append(list, s.str)
				}
			}
		}
	}
	return list
}

// match reports whether route is a redirect's source; a source's `:name*`
// or `*` part matches the rest of a path.
func (r redirectList) match(route string) bool {
	for _, s := range r {
		if i := strings.IndexAny(s, ":*"); i >= 0 {
			if strings.HasPrefix(route, s[:i]) {
				return true
			}
		} else if strings.TrimSuffix(s, "/") == strings.TrimSuffix(route, "/") {
			return true
		}
	}
	return false
}

// hasAnchor reports whether a page has a heading (or an element id) whose
// slug is fragment.
func hasAnchor(d *mdxDoc, fragment string) bool {
	want := strings.ToLower(fragment)
	counts := map[string]int{}
	found := false
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		slug := slugify(d.nodeText(h))
		if k := counts[slug]; k > 0 {
			counts[slug]++
			slug = fmt.Sprintf("%s-%d", slug, k)
		} else {
			counts[slug] = 1
		}
		if slug == want {
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkSkipChildren, nil
	})
	if found {
		return true
	}
	for _, t := range d.tags {
		if a, ok := t.attrs["id"]; ok && strings.ToLower(a.value) == want {
			return true
		}
	}
	return false
}

// nodeText is the plain text of a node (a heading's words).
func (d *mdxDoc) nodeText(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(d.flat))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// slugify makes a heading's anchor as GitHub-style slugs do: lower case,
// punctuation dropped, spaces to hyphens.
func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var importFrom = regexp.MustCompile(`(?m)(?:\bfrom|^import)\s*['"]([^'"\n]+)['"]`)

// checkImports checks that every snippet a page imports exists.
func checkImports(r *repo, p string, d *mdxDoc) []Problem {
	root := docsRoot(r, p)
	var problems []Problem
	for _, b := range d.esm {
		block := d.src[b.start:b.end]
		for _, m := range importFrom.FindAllSubmatchIndex(block, -1) {
			spec := string(block[m[2]:m[3]])
			if !strings.HasPrefix(spec, "/") && !strings.HasPrefix(spec, ".") {
				continue // a package, which Mintlify provides or refuses
			}
			candidate, inside := resolveLink(root, p, spec)
			if !inside {
				problems = append(problems, d.problemAt(p, b.start+m[2], SeverityError, "imports %q, which does not exist", spec))
				continue
			}
			if found, err := r.isFile(candidate); errors.Is(err, errLinkOutside) {
				problems = append(problems, d.problemAt(p, b.start+m[2], SeverityError, "imports %q, which %v", spec, err))
			} else if !found {
				problems = append(problems, d.problemAt(p, b.start+m[2], SeverityError, "imports %q, which does not exist", spec))
			}
		}
	}
	return problems
}

// checkLinksTo finds links, in every page of the checkout, to pages that
// were deleted: they break the build though the linking page is unchanged.
func checkLinksTo(r *repo, deleted []string) []Problem {
	gone := map[string]bool{}
	for _, p := range deleted {
		gone[strings.TrimSuffix(strings.TrimSuffix(p, ".mdx"), ".md")] = true
	}
	var problems []Problem
	// The callback never returns an error, so neither does the walk. Folders
	// that are symbolic links are not entered (fs.WalkDir does not follow
	// them), and a page that is a link leading outside is not read.
	_ = fs.WalkDir(r.root.FS(), ".", func(rel string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder: its pages cannot be checked
		}
		if e.IsDir() {
			if name := e.Name(); name != "." && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !isPage(rel) {
			return nil
		}
		data, err := r.read(rel)
		if err != nil {
			return nil // a link leading outside, or gone: nothing of it to check
		}
		_, body := checkFrontmatter(rel, data)
		d := parseMDX(data, body)
		if len(checkMDX(rel, d)) > 0 {
			return nil
		}
		root := docsRoot(r, rel)
		for _, l := range d.links() {
			target, _, ok := internalTarget(l.target)
			if !ok || target == "" {
				continue
			}
			candidate, inside := resolveLink(root, rel, target)
			if !inside {
				continue
			}
			if gone[strings.TrimSuffix(candidate, "/")] {
				if _, found, _ := findTarget(r, candidate); !found {
					problems = append(problems, d.problemAt(rel, l.off, SeverityError, "link %q points at a page this change deletes", l.target))
				}
			}
		}
		return nil
	})
	return problems
}
