package agent

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// What one search_files call looks at and shows at most.
const (
	maxSearchHits    = 100
	maxSearchBytes   = 24 << 10 // of the lines shown
	maxSearchFile    = 1 << 20  // larger files are skipped
	maxSearchLine    = 240      // characters of a line shown
	maxSearchContext = 10
)

const searchFilesDesc = "Search the repository's text files, line by line, like grep. Matches are case-insensitive; " +
	"each is shown as path:line: text, and lines of context around it as path-line- text, with -- between separate places. " +
	"Narrow the search with path (a folder, a file, or a glob such as \"guides/**/*.mdx\" or \"*.{md,mdx}\")."

var searchFilesParams = []param{
	{name: "query", kind: kindString, desc: "What to look for: plain text, or a regular expression (RE2 syntax) when regex is true.", required: true},
	{name: "regex", kind: kindBoolean, desc: "Read query as a regular expression; false, null or omitted for plain text."},
	{name: "path", kind: kindString, desc: "A folder or file to search, or a glob of paths (* within a folder, ** across folders, {a,b} for either); null or omitted to search everything. A glob without / matches file names in any folder."},
	{name: "context", kind: kindInteger, desc: fmt.Sprintf("Lines to show before and after each match, 0 to %d; null or omitted for 0.", maxSearchContext)},
}

func (c *checkout) searchFiles(a args) (string, error) {
	query := a.str("query")
	if query == "" {
		return "", toolErrorf("query is empty")
	}
	pattern := regexp.QuoteMeta(query)
	if a.bool("regex") {
		pattern = query
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return "", toolErrorf("query is not a regular expression Go's RE2 reads: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	context := a.int("context", 0)
	if context < 0 || context > maxSearchContext {
		return "", toolErrorf("context must be from 0 to %d lines, not %d", maxSearchContext, context)
	}
	start, match, err := c.searchScope(a.str("path"))
	if err != nil {
		return "", err
	}

	var out strings.Builder
	hits, files, skipped := 0, 0, 0
	full := false // the hit or byte cap was reached
	err = fs.WalkDir(c.root.FS(), start, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable entry is left out, not fatal
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !match(name) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxSearchFile {
			skipped++
			return nil
		}
		data, err := c.root.ReadFile(name)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || !re.Match(data) {
			return nil
		}
		files++
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		var matched []int
		isMatch := map[int]bool{}
		for i, line := range lines {
			if re.MatchString(line) {
				matched = append(matched, i)
				isMatch[i] = true
			}
		}
		// Matches whose context meets or overlaps are shown as one block.
		for k := 0; k < len(matched); {
			if hits >= maxSearchHits {
				full = true
				return fs.SkipAll
			}
			from, to := max(matched[k]-context, 0), min(matched[k]+context, len(lines)-1)
			merged := 1
			for k++; k < len(matched) && matched[k]-context <= to+1 && hits+merged < maxSearchHits; k++ {
				merged++
				to = min(matched[k]+context, len(lines)-1)
			}
			var block strings.Builder
			if context > 0 && out.Len() > 0 {
				block.WriteString("--\n")
			}
			n := 0
			for j := from; j <= to; j++ {
				sep := "-"
				if isMatch[j] {
					sep = ":"
					n++
				}
				fmt.Fprintf(&block, "%s%s%d%s %s\n", name, sep, j+1, sep, cutLine(lines[j]))
			}
			if out.Len()+block.Len() > maxSearchBytes {
				full = true
				return fs.SkipAll
			}
			out.WriteString(block.String())
			hits += n
		}
		return nil
	})
	if err != nil {
		return "", toolErrorf("search failed: %v", err)
	}
	where := ""
	if p := a.str("path"); p != "" {
		where = " in " + p
	}
	if hits == 0 {
		msg := fmt.Sprintf("no matches for %q%s", query, where)
		if skipped > 0 {
			msg += fmt.Sprintf(" (%d files over %d MB were not searched)", skipped, maxSearchFile>>20)
		}
		return msg, nil
	}
	if full {
		fmt.Fprintf(&out, "… stopped after %d matches in %d files; narrow the search with path or a more specific query\n", hits, files)
	} else {
		fmt.Fprintf(&out, "%d matches in %d files\n", hits, files)
	}
	return out.String(), nil
}

// cutLine is a line as search shows it: without its line ending, cut to
// maxSearchLine characters.
func cutLine(s string) string {
	s = strings.TrimRight(s, "\r")
	if r := []rune(s); len(r) > maxSearchLine {
		return string(r[:maxSearchLine]) + "…"
	}
	return s
}

// searchScope turns search_files' path into where to start walking and
// which files to search: a folder, one file, or a glob.
func (c *checkout) searchScope(p string) (string, func(string) bool, error) {
	all := func(string) bool { return true }
	p = strings.TrimSpace(p)
	if p == "" || p == "." || p == "./" {
		return ".", all, nil
	}
	if !strings.ContainsAny(p, "*?[{") {
		rel, err := c.resolve(p, true)
		if err != nil {
			return "", nil, err
		}
		if _, err := c.root.Stat(rel); err != nil {
			return "", nil, fsError(rel, err)
		}
		return rel, all, nil
	}
	glob := strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, `\`, "/")), "./")
	if strings.HasPrefix(glob, "/") || glob == ".." || strings.HasPrefix(glob, "../") {
		return "", nil, toolErrorf("path %q leaves the repository; give a glob relative to its root", p)
	}
	alts := expandBraces(glob)
	for _, g := range alts {
		if _, err := path.Match(strings.ReplaceAll(g, "**", "*"), ""); err != nil {
			return "", nil, toolErrorf("path %q is not a glob that can be read: %v", p, err)
		}
	}
	// Walk from the folder every alternative starts with, when there is one.
	start := "."
	if len(alts) == 1 && strings.Contains(glob, "/") {
		segs := strings.Split(glob, "/")
		var lit []string
		for _, s := range segs[:len(segs)-1] {
			if strings.ContainsAny(s, "*?[") {
				break
			}
			lit = append(lit, s)
		}
		if len(lit) > 0 {
			rel, err := c.resolve(strings.Join(lit, "/"), true)
			if err != nil {
				return "", nil, err
			}
			if _, err := c.root.Stat(rel); err != nil {
				return "", nil, fsError(rel, err)
			}
			start = rel
		}
	}
	return start, func(name string) bool {
		for _, g := range alts {
			if matchGlob(g, name) {
				return true
			}
		}
		return false
	}, nil
}

// expandBraces turns "a/*.{md,mdx}" into "a/*.md" and "a/*.mdx" (one level
// of braces, as shells and ripgrep's globs read them).
func expandBraces(g string) []string {
	open := strings.IndexByte(g, '{')
	if open < 0 {
		return []string{g}
	}
	end := strings.IndexByte(g[open:], '}')
	if end < 0 {
		return []string{g}
	}
	end += open
	var out []string
	for _, alt := range strings.Split(g[open+1:end], ",") {
		out = append(out, expandBraces(g[:open]+alt+g[end+1:])...)
	}
	return out
}

// matchGlob reports whether name matches a glob: * and ? within one path
// segment, ** across any number of them. A glob without / matches the file
// name in any folder.
func matchGlob(glob, name string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(name))
		return ok
	}
	return matchSegments(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchSegments(glob, name []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(glob[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], name[0]); !ok {
			return false
		}
		glob, name = glob[1:], name[1:]
	}
	return len(name) == 0
}
