package agent

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/folio-docs/folio/agent/workspace"
)

// navFiles are the Mintlify-style navigation files Folio understands.
var navFiles = []string{"docs.json", "mint.json"}

var (
	mdLink   = regexp.MustCompile(`!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	hrefLink = regexp.MustCompile(`\b(?:href|src)=["']([^"']+)["']`)
	codeSpan = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
)

// validate checks what a run changed, before it becomes a pull request:
// changed Markdown/MDX has well-formed frontmatter and internal links that
// resolve, and a navigation file, if it or the set of pages changed, parses
// and names pages that exist. Each problem is one line the model can act on.
func validate(dir string, changes []workspace.Change) []Problem {
	var problems []Problem
	pagesChanged := false
	changedNav := map[string]bool{}
	for _, ch := range changes {
		if ch.Status != "M" {
			pagesChanged = true
		}
		if isNavFile(ch.Path) && ch.Status != "D" {
			changedNav[ch.Path] = true
		}
		if ch.Status == "D" || !isPage(ch.Path) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ch.Path)))
		if err != nil {
			continue // a symlink or the like; the tools never write those
		}
		problems = append(problems, checkFrontmatter(ch.Path, data)...)
		problems = append(problems, checkLinks(dir, ch.Path, data)...)
	}
	for _, nav := range findNavFiles(dir) {
		if changedNav[nav] || pagesChanged {
			problems = append(problems, checkNav(dir, nav)...)
		}
	}
	return problems
}

func isPage(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".mdx"
}

func isNavFile(p string) bool {
	for _, n := range navFiles {
		if path.Base(p) == n {
			return true
		}
	}
	return false
}

// findNavFiles finds docs.json/mint.json at the root or one level down
// (a docs/ folder in a product repository).
func findNavFiles(dir string) []string {
	var found []string
	for _, n := range navFiles {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			found = append(found, n)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "*", n))
		for _, m := range matches {
			rel, _ := filepath.Rel(dir, m)
			found = append(found, filepath.ToSlash(rel))
		}
	}
	return found
}

func checkFrontmatter(p string, data []byte) []Problem {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return nil // frontmatter is optional
	}
	rest := data[bytes.IndexByte(data, '\n')+1:]
	var yamlText []byte
	closed := false
	for len(rest) > 0 || !closed {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if strings.TrimRight(string(line), "\r") == "---" {
			closed = true
			break
		}
		yamlText = append(yamlText, line...)
		yamlText = append(yamlText, '\n')
		if !found {
			break
		}
		rest = after
	}
	if !closed {
		return []Problem{{Path: p, Line: 1, Column: 1, Severity: SeverityError, Message: "the frontmatter opened with --- on line 1 is never closed with a --- line"}}
	}
	var fm any
	if err := yaml.Unmarshal(yamlText, &fm); err != nil {
		return []Problem{problemf(p, "the frontmatter is not valid YAML: %v", err)}
	}
	if fm == nil {
		return nil
	}
	if _, ok := fm.(map[string]any); !ok {
		return []Problem{problemf(p, "the frontmatter must be a YAML mapping of keys to values (like title: ...)")}
	}
	return nil
}

func checkLinks(dir, p string, data []byte) []Problem {
	text := codeSpan.ReplaceAll(data, nil) // links in code samples are examples, not links
	var targets []string
	for _, m := range mdLink.FindAllSubmatch(text, -1) {
		targets = append(targets, string(m[1]))
	}
	for _, m := range hrefLink.FindAllSubmatch(text, -1) {
		targets = append(targets, string(m[1]))
	}
	var problems []Problem
	seen := map[string]bool{}
	for _, t := range targets {
		if seen[t] {
			continue
		}
		seen[t] = true
		target, ok := internalTarget(t)
		if !ok {
			continue
		}
		var candidate string
		if strings.HasPrefix(target, "/") {
			candidate = strings.TrimPrefix(path.Clean(target), "/")
		} else {
			candidate = path.Join(path.Dir(p), target)
		}
		if strings.HasPrefix(candidate, "../") || candidate == ".." {
			problems = append(problems, problemf(p, "link %q points outside the repository", t))
			continue
		}
		if !pageExists(dir, candidate) && !(strings.HasPrefix(target, "/") && pageExistsUnderNav(dir, candidate)) {
			problems = append(problems, problemf(p, "link %q points at a page that does not exist", t))
		}
	}
	return problems
}

// internalTarget keeps links into the docs themselves, without anchor or query.
func internalTarget(t string) (string, bool) {
	if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.Contains(t, "{") {
		return "", false
	}
	if u, err := url.Parse(t); err != nil || u.Scheme != "" {
		return "", false
	}
	t, _, _ = strings.Cut(t, "#")
	t, _, _ = strings.Cut(t, "?")
	if t == "" {
		return "", false
	}
	if un, err := url.PathUnescape(t); err == nil {
		t = un
	}
	return t, true
}

// pageExists accepts a file as written, or a page by its route: with .md or
// .mdx added, or a folder's index.
func pageExists(dir, rel string) bool {
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" || rel == "." {
		rel = "index"
	}
	for _, c := range []string{rel, rel + ".mdx", rel + ".md", rel + "/index.mdx", rel + "/index.md", rel + "/README.md"} {
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(c))); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}

// pageExistsUnderNav resolves a root-relative route against the folder of a
// navigation file too, since docs sites are often served from docs/.
func pageExistsUnderNav(dir, rel string) bool {
	for _, nav := range findNavFiles(dir) {
		if base := path.Dir(nav); base != "." && pageExists(dir, path.Join(base, rel)) {
			return true
		}
	}
	return false
}

func checkNav(dir, nav string) []Problem {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(nav)))
	if err != nil {
		return []Problem{problemf(nav, "cannot be read: %v", err)}
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return []Problem{problemf(nav, "is not valid JSON: %v", err)}
	}
	var pages []string
	collectPages(doc, &pages)
	base := path.Dir(nav)
	var problems []Problem
	seen := map[string]bool{}
	for _, pg := range pages {
		if seen[pg] || strings.Contains(pg, "://") {
			continue
		}
		seen[pg] = true
		candidate := path.Join(base, strings.TrimPrefix(pg, "/"))
		if strings.HasPrefix(candidate, "../") || candidate == ".." {
			// Outside the checkout: never looked at, so nothing outside is revealed.
			problems = append(problems, problemf(nav, "navigation names page %q, which is outside the repository", pg))
			continue
		}
		if !pageExists(dir, candidate) {
			problems = append(problems, problemf(nav, "navigation names page %q, but no %s.mdx or %s.md exists", pg, pg, pg))
		}
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Message < problems[j].Message })
	return problems
}

// collectPages gathers the strings of every "pages" array, at any depth
// (groups nest, and docs.json nests tabs, anchors and versions too).
func collectPages(v any, pages *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if k == "pages" {
				if list, ok := child.([]any); ok {
					for _, item := range list {
						if s, ok := item.(string); ok {
							*pages = append(*pages, s)
						}
					}
				}
			}
			collectPages(child, pages)
		}
	case []any:
		for _, child := range v {
			collectPages(child, pages)
		}
	}
}
