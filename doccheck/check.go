// Package doccheck checks a docs repository's changes as strictly as
// Mintlify's build and no more: pages that must compile as MDX, frontmatter,
// links, and the docs.json / mint.json configuration. The agent runs it
// before a turn's changes become a pull request; its Problems are part of a
// job's answer (CONTRACT §2).
package doccheck

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/folio-docs/folio/agent/workspace"
)

// navFiles are the Mintlify configuration files Folio understands: docs.json,
// and the legacy mint.json (Mintlify reads both when both are present).
var navFiles = []string{"docs.json", "mint.json"}

// Check checks what a run changed, before it becomes a pull request, as
// strictly as Mintlify's build and no more: changed pages (and snippets) must
// compile as MDX, with frontmatter that parses and internal links that
// resolve; a configuration file, if it or the set of pages changed, must
// match Mintlify's schema and name pages that exist. Errors are what would
// fail the build; warnings (unclosed frontmatter, a missing #anchor) build
// but read wrong. Agreement with Mintlify's own validators is measured on
// the corpus in testdata/mintlify.
//
// Every file is read through root, the checkout as the agent's tools open
// it: a symbolic link that leads outside the checkout is not followed, and a
// page or configuration file that is one is reported as such.
func Check(root *os.Root, changes []workspace.Change) []Problem {
	r := newRepo(root)
	var problems []Problem
	pagesChanged := false
	changedNav := map[string]bool{}
	var deleted []string
	for _, ch := range changes {
		if ch.Status != "M" {
			pagesChanged = true
		}
		if isNavFile(ch.Path) && ch.Status != "D" {
			changedNav[ch.Path] = true
		}
		if ch.Status == "D" {
			if isPage(ch.Path) {
				deleted = append(deleted, ch.Path)
			}
			continue
		}
		if !isPage(ch.Path) {
			continue
		}
		data, err := r.read(ch.Path)
		if errors.Is(err, errLinkOutside) {
			problems = append(problems, problemf(ch.Path, "%v", err))
			continue
		}
		if err != nil {
			continue // a folder, or a file gone since the run listed it: nothing to check
		}
		problems = append(problems, checkPage(r, ch.Path, data)...)
	}
	for _, nav := range findNavFiles(r) {
		if changedNav[nav] || pagesChanged {
			problems = append(problems, checkConfig(r, nav)...)
		}
	}
	if len(deleted) > 0 {
		problems = append(problems, checkLinksTo(r, deleted)...)
	}
	return problems
}

// checkPage runs every check of one page: frontmatter, MDX, links.
func checkPage(r *repo, p string, data []byte) []Problem {
	problems, body := checkFrontmatter(p, data)
	doc := parseMDX(data, body)
	syntax := checkMDX(p, doc)
	problems = append(problems, syntax...)
	if len(syntax) > 0 {
		return problems // links cannot be read reliably from a page that does not compile
	}
	problems = append(problems, checkImports(r, p, doc)...)
	problems = append(problems, checkLinks(r, p, doc)...)
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
// (a docs/ folder in a product repository). One that is a symbolic link is
// found too, so that checkConfig can say it will not follow it.
func findNavFiles(r *repo) []string {
	var found []string
	for _, n := range navFiles {
		if r.present(n) {
			found = append(found, n)
		}
		// The pattern is a constant, so fs.Glob cannot fail; folders that are
		// links leading outside are not listed by os.Root's FS.
		matches, _ := fs.Glob(r.root.FS(), "*/"+n)
		found = append(found, matches...)
	}
	sort.Strings(found)
	return found
}

// docsRoot is the folder of the configuration file that serves page p:
// Mintlify resolves root-relative and bare links from there.
func docsRoot(r *repo, p string) string {
	best := ""
	for _, nav := range findNavFiles(r) {
		base := path.Dir(nav)
		if base == "." {
			base = ""
		}
		if (base == "" || strings.HasPrefix(p, base+"/")) && len(base) >= len(best) {
			best = base
		}
	}
	return best
}

var (
	frontmatterClose = regexp.MustCompile(`^(?:---|\.\.\.)[ \t]*\r?$`)
	yamlErrLine      = regexp.MustCompile(`^yaml: line (\d+): `)
	tabListItem      = regexp.MustCompile(`^\t+[ \t]*-(?:[ \t]|$)`)
)

// checkFrontmatter checks the YAML between a first line `---` and the next
// `---` (or `...`) line, and returns where the page's content starts.
func checkFrontmatter(p string, data []byte) ([]Problem, int) {
	start := 0
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		start = 3
	}
	rest := data[start:]
	if !bytes.HasPrefix(rest, []byte("---\n")) && !bytes.HasPrefix(rest, []byte("---\r\n")) {
		return nil, 0 // frontmatter is optional
	}
	offset := start + bytes.IndexByte(rest, '\n') + 1
	var yamlText []byte
	line := 2
	for i := offset; i < len(data); line++ {
		end := lineEnd(data, i)
		text := data[i:end]
		if frontmatterClose.Match(text) {
			problems := checkYAML(p, yamlText)
			return problems, min(end+1, len(data))
		}
		if tabListItem.Match(text) {
			// Mintlify's YAML reader takes leading tabs as no indentation at
			// all, which a list item cannot follow.
			return []Problem{{Path: p, Line: line, Column: 1, Severity: SeverityError, Message: "the frontmatter indents a list item with a tab: use spaces"}}, end + 1
		}
		if len(text) > 0 && text[0] == '\t' {
			text = bytes.TrimLeft(text, " \t") // read as Mintlify does: leading tabs are no indentation
		}
		yamlText = append(yamlText, text...)
		yamlText = append(yamlText, '\n')
		i = end + 1
	}
	// Mintlify builds this page: the --- is a horizontal rule and the
	// "frontmatter" plain text. It builds, but the page lost its title.
	return []Problem{{Path: p, Line: 1, Column: 1, Severity: SeverityWarning,
		Message: "the frontmatter opened with --- on line 1 is never closed with a --- line, so Mintlify shows it as text and the page has no title"}}, 0
}

func checkYAML(p string, text []byte) []Problem {
	var fm any
	if err := yaml.Unmarshal(text, &fm); err != nil {
		msg := err.Error()
		line := 1
		if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + 1 // the opening --- is line 1
			msg = strings.TrimPrefix(msg, m[0])
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
		return []Problem{{Path: p, Line: line, Severity: SeverityError, Message: "the frontmatter is not valid YAML: " + msg}}
	}
	if fm == nil {
		return nil
	}
	if _, ok := fm.(map[string]any); !ok {
		// Mintlify builds it, but takes no title or description from it.
		return []Problem{{Path: p, Line: 2, Column: 1, Severity: SeverityWarning, Message: "the frontmatter should be a YAML mapping of keys to values (like title: ...); Mintlify ignores anything else"}}
	}
	return nil
}
