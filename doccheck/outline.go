package doccheck

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// navNode is one element of a site's navigation: a tab, anchor, group...
// with the pages it lists and the elements inside it.
type navNode struct {
	kind, name string
	pages      []string
	children   []*navNode
}

// Outline is a compact view of a docs site for the agent's first message:
// for each docs.json or mint.json, its navigation (divisions and groups,
// with the pages each lists) and how many pages the repository has, naming
// those no navigation lists. It stays within about max bytes: a navigation
// too long to list page by page is shown as its groups with their page
// counts, and what still does not fit is counted rather than shown. It is
// "" when the repository has no configuration file.
func Outline(root *os.Root, max int) string {
	r := newRepo(root)
	var b strings.Builder
	for _, nav := range findNavFiles(r) {
		data, err := r.read(nav)
		if err != nil {
			continue
		}
		v, _, err := parseJSONPos(data)
		if err != nil {
			fmt.Fprintf(&b, "%s is not valid JSON, so its navigation cannot be shown.\n", nav)
			continue
		}
		tree := &navNode{}
		if path.Base(nav) == "mint.json" {
			for _, g := range itemsOf(v.get("navigation")) {
				tree.children = append(tree.children, navGroup(g))
			}
		} else {
			navContainer(tree, v.get("navigation"))
		}
		base := path.Dir(nav)
		pages := sitePages(r, base)
		listed := map[string]bool{}
		tree.walk(func(n *navNode) {
			for _, p := range n.pages {
				listed[path.Join(base, strings.Trim(p, "/"))] = true
			}
		})
		var unlisted []string
		for _, p := range pages {
			if !listed[strings.TrimSuffix(strings.TrimSuffix(p, ".mdx"), ".md")] {
				unlisted = append(unlisted, p)
			}
		}
		fmt.Fprintf(&b, "%s: %d pages (.mdx and .md files, snippets aside)", nav, len(pages))
		if len(unlisted) > 0 {
			shown := unlisted[:min(len(unlisted), 10)]
			fmt.Fprintf(&b, "; %d in no navigation: %s", len(unlisted), strings.Join(shown, ", "))
			if len(shown) < len(unlisted) {
				fmt.Fprintf(&b, " and %d more", len(unlisted)-len(shown))
			}
		}
		b.WriteString(". Its navigation, pages by path without extension:\n")
		budget := max - b.Len()
		full := tree.render(false)
		if len(full) > budget {
			full = tree.render(true)
		}
		b.WriteString(cutLines(full, budget))
	}
	return b.String()
}

func (n *navNode) walk(f func(*navNode)) {
	f(n)
	for _, c := range n.children {
		c.walk(f)
	}
}

// render lists the tree as indented lines; brief gives each element's page
// count (and the folder they share) instead of the pages.
func (n *navNode) render(brief bool) string {
	var b strings.Builder
	var rec func(n *navNode, depth int)
	rec = func(n *navNode, depth int) {
		for _, c := range n.children {
			b.WriteString(strings.Repeat("  ", depth) + "- " + c.kind)
			if c.name != "" {
				fmt.Fprintf(&b, " %q", c.name)
			}
			if len(c.pages) > 0 {
				if brief {
					fmt.Fprintf(&b, ": %d pages", len(c.pages))
					if dir := commonDir(c.pages); dir != "" {
						fmt.Fprintf(&b, " in %s/", dir)
					}
				} else {
					b.WriteString(": " + strings.Join(c.pages, ", "))
				}
			}
			b.WriteString("\n")
			rec(c, depth+1)
		}
	}
	if len(n.pages) > 0 {
		rec(&navNode{children: []*navNode{{kind: "pages", pages: n.pages}}}, 0)
	}
	rec(n, 0)
	return b.String()
}

// cutLines keeps the whole lines of s that fit in max bytes and counts the rest.
func cutLines(s string, max int) string {
	if len(s) <= max {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		if b.Len()+len(l) > max-60 {
			fmt.Fprintf(&b, "… %d more lines of navigation; read the file for them\n", len(lines)-i-1)
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

func commonDir(pages []string) string {
	dir := path.Dir(pages[0])
	for _, p := range pages[1:] {
		for dir != "." && !strings.HasPrefix(p, dir+"/") {
			dir = path.Dir(dir)
		}
	}
	if dir == "." || dir == "/" {
		return ""
	}
	return dir
}

// navContainer adds what a docs.json navigation object holds: pages,
// groups and the divisions (tabs, anchors...), in that order.
func navContainer(n *navNode, obj *jsonValue) {
	if obj == nil || obj.kind != jsonObject {
		return
	}
	navPages(n, obj.get("pages"))
	for _, g := range itemsOf(obj.get("groups")) {
		n.children = append(n.children, navGroup(g))
	}
	for _, d := range navDivisions {
		for _, item := range itemsOf(obj.get(d[0])) {
			child := &navNode{kind: d[1]}
			if name := item.get(d[1]); name != nil && name.kind == jsonString {
				child.name = name.str
			}
			navContainer(child, item)
			n.children = append(n.children, child)
		}
	}
	if g := obj.get("global"); g != nil {
		child := &navNode{kind: "global"}
		navContainer(child, g)
		if len(child.pages)+len(child.children) > 0 {
			n.children = append(n.children, child)
		}
	}
}

// itemsOf is an array's items; nothing for a missing value or another kind.
func itemsOf(v *jsonValue) []*jsonValue {
	if v == nil || v.kind != jsonArray {
		return nil
	}
	return v.items
}

func navGroup(g *jsonValue) *navNode {
	n := &navNode{kind: "group"}
	if name := g.get("group"); name != nil && name.kind == jsonString {
		n.name = name.str
	}
	navPages(n, g.get("pages"))
	return n
}

// navPages adds a "pages" list: page paths, and groups nested among them.
func navPages(n *navNode, pages *jsonValue) {
	for _, e := range itemsOf(pages) {
		switch e.kind {
		case jsonString:
			n.pages = append(n.pages, e.str)
		case jsonObject:
			n.children = append(n.children, navGroup(e))
		}
	}
}

// sitePages lists the pages under base (a docs root), slash-separated
// from the checkout's root: .mdx and .md files, leaving out hidden folders,
// node_modules and snippets, which Mintlify does not serve as pages.
func sitePages(r *repo, base string) []string {
	var pages []string
	_ = fs.WalkDir(r.root.FS(), base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); p != base && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "snippets") {
				return fs.SkipDir
			}
			return nil
		}
		if isPage(p) {
			pages = append(pages, p)
		}
		return nil
	})
	sort.Strings(pages)
	return pages
}
