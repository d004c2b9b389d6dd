package doccheck

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// The rules below follow Mintlify's public documentation of docs.json
// ("Global settings", "Navigation", "Themes") and of the legacy mint.json.
// They are checked against the verdicts of Mintlify's own validators in
// doccheck/testdata/mintlify; none of Mintlify's code or schemas is copied here.

// docsThemes are the layouts docs.json's "theme" may name.
var docsThemes = []string{"mint", "maple", "palm", "willow", "linden", "almond", "aspen", "sequoia", "luma"}

var hexColor = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// openAPIEntry is a navigation entry naming an operation of an OpenAPI
// spec ("GET /widgets") rather than a page file.
var openAPIEntry = regexp.MustCompile(`^(?i:get|put|post|delete|options|head|patch|trace|webhook)\s+\S`)

// navDivisions are the navigation elements that hold others, with the key
// that names each element.
var navDivisions = [][2]string{
	{"tabs", "tab"},
	{"anchors", "anchor"},
	{"dropdowns", "dropdown"},
	{"versions", "version"},
	{"languages", "language"},
	{"products", "product"},
	{"menu", "item"},
}

// configCheck collects the problems of one configuration file.
type configCheck struct {
	repo     *repo  // the checkout
	file     string // the file, relative to the checkout
	data     []byte
	problems []Problem
}

func (c *configCheck) at(v *jsonValue, format string, args ...any) {
	p := Problem{Path: c.file, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}
	if v != nil {
		p.Line, p.Column = lineCol(c.data, v.off)
	}
	c.problems = append(c.problems, p)
}

// checkConfig checks a docs.json or mint.json: that it parses, that it has
// the fields Mintlify requires with the types it accepts, and that every
// page its navigation names exists.
func checkConfig(r *repo, file string) []Problem {
	data, err := r.read(file)
	if errors.Is(err, errLinkOutside) {
		return []Problem{problemf(file, "%v", err)}
	}
	if err != nil {
		return []Problem{problemf(file, "cannot be read: %v", err)}
	}
	c := &configCheck{repo: r, file: file, data: data}
	root, off, err := parseJSONPos(data)
	if err != nil {
		line, col := lineCol(data, off)
		return []Problem{{Path: file, Line: line, Column: col, Severity: SeverityError, Message: fmt.Sprintf("is not valid JSON: %v", err)}}
	}
	if root.kind != jsonObject {
		c.at(root, "must be a JSON object, not %s", root.kind)
		return c.problems
	}
	if path.Base(file) == "mint.json" {
		c.checkMintConfig(root)
	} else {
		c.checkDocsConfig(root)
	}
	return c.problems
}

func (c *configCheck) checkDocsConfig(root *jsonValue) {
	theme := root.get("theme")
	switch {
	case theme == nil:
		c.at(root, `"theme" is required: one of %s`, strings.Join(docsThemes, ", "))
	case theme.kind != jsonString || !contains(docsThemes, theme.str):
		c.at(theme, `"theme" must be one of %s`, strings.Join(docsThemes, ", "))
	}
	c.requireName(root)
	c.checkColors(root)
	c.optionalString(root, "description")
	c.checkImage(root, "favicon", false)
	c.checkImage(root, "logo", true)
	c.checkRedirects(root)
	c.checkNavbarFooter(root)

	nav := root.get("navigation")
	switch {
	case nav == nil:
		c.at(root, `"navigation" is required`)
	case nav.kind == jsonArray:
		c.at(nav, `"navigation" must be an object (groups, tabs, anchors...); an array of groups is the old mint.json form`)
	case nav.kind != jsonObject:
		c.at(nav, `"navigation" must be an object, not %s`, nav.kind)
	default:
		if !c.checkNavContainer(nav, "navigation", root.get("openapi") != nil) {
			c.at(nav, `"navigation" must hold pages, groups, tabs, anchors, dropdowns, versions, languages or products`)
		}
	}
}

func (c *configCheck) checkMintConfig(root *jsonValue) {
	c.requireName(root)
	switch fav := root.get("favicon"); {
	case fav == nil:
		c.at(root, `"favicon" is required in mint.json`)
	case fav.kind != jsonString:
		c.at(fav, `"favicon" must be a string, not %s`, fav.kind)
	}
	c.checkColors(root)
	c.checkRedirects(root)
	nav := root.get("navigation")
	switch {
	case nav == nil:
		c.at(root, `"navigation" is required`)
	case nav.kind != jsonArray:
		c.at(nav, `"navigation" in mint.json must be an array of groups, not %s`, nav.kind)
	default:
		hasSpec := root.get("openapi") != nil
		for _, g := range nav.items {
			c.checkGroup(g, hasSpec, true)
		}
	}
}

func (c *configCheck) requireName(root *jsonValue) {
	switch name := root.get("name"); {
	case name == nil:
		c.at(root, `"name" is required`)
	case name.kind != jsonString:
		c.at(name, `"name" must be a string, not %s`, name.kind)
	case name.str == "":
		c.at(name, `"name" must not be empty`)
	}
}

func (c *configCheck) checkColors(root *jsonValue) {
	colors := root.get("colors")
	switch {
	case colors == nil:
		c.at(root, `"colors" is required, with at least "primary"`)
		return
	case colors.kind != jsonObject:
		c.at(colors, `"colors" must be an object, not %s`, colors.kind)
		return
	}
	if colors.get("primary") == nil {
		c.at(colors, `"colors.primary" is required`)
	}
	for _, key := range []string{"primary", "light", "dark"} {
		if v := colors.get(key); v != nil && (v.kind != jsonString || !hexColor.MatchString(v.str)) {
			c.at(v, `"colors.%s" must be a hex color with a leading # (like "#0D9373")`, key)
		}
	}
}

func (c *configCheck) optionalString(obj *jsonValue, key string) {
	if v := obj.get(key); v != nil && v.kind != jsonString {
		c.at(v, "%q must be a string, not %s", key, v.kind)
	}
}

// checkImage checks a field that is a path, or light and dark paths.
func (c *configCheck) checkImage(root *jsonValue, key string, bothModes bool) {
	v := root.get(key)
	switch {
	case v == nil || v.kind == jsonString:
	case v.kind == jsonObject:
		for _, mode := range []string{"light", "dark"} {
			m := v.get(mode)
			if m == nil && bothModes {
				c.at(v, "%q needs both \"light\" and \"dark\" paths (or be one path)", key)
			} else if m != nil && m.kind != jsonString {
				c.at(m, "%q must be a string path, not %s", key+"."+mode, m.kind)
			}
		}
	default:
		c.at(v, "%q must be a path or an object of light and dark paths, not %s", key, v.kind)
	}
}

// checkNavbarFooter checks the shapes of navbar and footer: objects, with
// navbar.links a list and footer.socials a map of platform to URL.
func (c *configCheck) checkNavbarFooter(root *jsonValue) {
	for _, key := range []string{"navbar", "footer"} {
		if v := root.get(key); v != nil && v.kind != jsonObject {
			c.at(v, "%q must be an object, not %s", key, v.kind)
		}
	}
	if links := root.get("navbar").get("links"); links != nil && links.kind != jsonArray {
		c.at(links, `"navbar.links" must be an array of {"label", "href"}, not %s`, links.kind)
	}
	socials := root.get("footer").get("socials")
	if socials == nil {
		return
	}
	if socials.kind != jsonObject {
		c.at(socials, `"footer.socials" must be an object of platform to URL (like {"x": "https://x.com/acme"}), not %s`, socials.kind)
		return
	}
	for _, m := range socials.members {
		if m.val.kind != jsonString {
			c.at(m.val, `"footer.socials.%s" must be a URL string, not %s`, m.key, m.val.kind)
		}
	}
}

func (c *configCheck) checkRedirects(root *jsonValue) {
	r := root.get("redirects")
	if r == nil {
		return
	}
	if r.kind != jsonArray {
		c.at(r, `"redirects" must be an array of {"source", "destination"}, not %s`, r.kind)
		return
	}
	for i, item := range r.items {
		if item.kind != jsonObject {
			c.at(item, `"redirects[%d]" must be an object with "source" and "destination"`, i)
			continue
		}
		for _, key := range []string{"source", "destination"} {
			switch v := item.get(key); {
			case v == nil:
				c.at(item, `"redirects[%d].%s" is required`, i, key)
			case v.kind != jsonString:
				c.at(v, `"redirects[%d].%s" must be a string, not %s`, i, key, v.kind)
			}
		}
	}
}

// checkNavContainer checks an object that may hold pages, groups and the
// divisions (tabs, anchors...), and reports whether it holds any of them.
func (c *configCheck) checkNavContainer(obj *jsonValue, where string, hasSpec bool) bool {
	hasSpec = hasSpec || obj.get("openapi") != nil || obj.get("asyncapi") != nil
	found := false
	if pages := obj.get("pages"); pages != nil {
		found = true
		c.checkPages(pages, where, hasSpec, false)
	}
	if groups := obj.get("groups"); groups != nil {
		found = true
		if groups.kind != jsonArray {
			c.at(groups, `"%s.groups" must be an array of groups, not %s`, where, groups.kind)
		} else {
			for _, g := range groups.items {
				c.checkGroup(g, hasSpec, false)
			}
		}
	}
	for _, d := range navDivisions {
		list, nameKey := d[0], d[1]
		items := obj.get(list)
		if items == nil {
			continue
		}
		found = true
		if items.kind != jsonArray {
			c.at(items, `"%s.%s" must be an array, not %s`, where, list, items.kind)
			continue
		}
		for _, item := range items.items {
			c.checkDivision(item, list, nameKey, hasSpec)
		}
	}
	if global := obj.get("global"); global != nil && global.kind == jsonObject {
		c.checkNavContainer(global, where+".global", hasSpec)
		found = found || len(global.members) > 0
	}
	return found
}

// checkDivision checks one tab, anchor, dropdown, version, language or product.
func (c *configCheck) checkDivision(item *jsonValue, list, nameKey string, hasSpec bool) {
	if item.kind != jsonObject {
		c.at(item, "each of %q must be an object with %q, not %s", list, nameKey, item.kind)
		return
	}
	switch name := item.get(nameKey); {
	case name == nil:
		c.at(item, "each of %q needs a %q", list, nameKey)
		return
	case name.kind != jsonString:
		c.at(name, "%q must be a string, not %s", nameKey, name.kind)
		return
	}
	name := item.get(nameKey)
	if list == "languages" && !languageCode.MatchString(name.str) {
		c.at(name, "%q is not a language code (like \"en\", \"fr\" or \"pt-BR\")", name.str)
	}
	c.checkNavContainer(item, fmt.Sprintf("%s %q", nameKey, name.str), hasSpec)
}

// languageCode is the shape of the codes docs.json's languages take.
var languageCode = regexp.MustCompile(`^[a-z]{2}(?:-[A-Za-z]{2,4})?$`)

func (c *configCheck) checkGroup(g *jsonValue, hasSpec, requirePages bool) {
	if g.kind != jsonObject {
		c.at(g, `a group must be an object with "group" and "pages", not %s`, g.kind)
		return
	}
	name := g.get("group")
	switch {
	case name == nil:
		c.at(g, `a group needs a "group" name`)
		return
	case name.kind != jsonString:
		c.at(name, `"group" must be a string, not %s`, name.kind)
		return
	case name.str == "":
		c.at(name, `"group" must not be empty`)
		return
	}
	label := fmt.Sprintf("group %q", name.str)
	hasSpec = hasSpec || g.get("openapi") != nil || g.get("asyncapi") != nil
	pages := g.get("pages")
	if pages == nil {
		// docs.json allows a group without pages; mint.json does not.
		if requirePages && g.get("openapi") == nil {
			c.at(g, `%s needs "pages"`, label)
		}
		return
	}
	c.checkPages(pages, label, hasSpec, requirePages)
}

func (c *configCheck) checkPages(pages *jsonValue, where string, hasSpec, requirePages bool) {
	if pages.kind != jsonArray {
		c.at(pages, `"pages" of %s must be an array, not %s`, where, pages.kind)
		return
	}
	for _, entry := range pages.items {
		switch entry.kind {
		case jsonString:
			c.checkPageEntry(entry, hasSpec)
		case jsonObject:
			c.checkGroup(entry, hasSpec, requirePages)
		default:
			c.at(entry, `each of "pages" must be a page path or a group, not %s`, entry.kind)
		}
	}
}

// checkPageEntry checks that a navigation entry names a page that exists,
// written as Mintlify wants it: from the docs root, without its extension.
func (c *configCheck) checkPageEntry(entry *jsonValue, hasSpec bool) {
	pg := entry.str
	if strings.Contains(pg, "://") {
		return
	}
	if hasSpec && openAPIEntry.MatchString(pg) {
		return // an operation of the configured OpenAPI spec, not a file
	}
	if ext := path.Ext(pg); ext == ".mdx" || ext == ".md" {
		c.at(entry, "navigation entry %q must name the page without its extension: %q", pg, strings.TrimSuffix(pg, ext))
		return
	}
	candidate := path.Join(path.Dir(c.file), strings.Trim(pg, "/"))
	if strings.HasPrefix(candidate, "../") || candidate == ".." {
		// Outside the checkout: never looked at, so nothing outside is revealed.
		c.at(entry, "navigation names page %q, which is outside the repository", pg)
		return
	}
	link := ""
	for _, file := range []string{candidate + ".mdx", candidate + ".md"} {
		found, err := c.repo.isFile(file)
		if found {
			return
		}
		if errors.Is(err, errLinkOutside) && link == "" {
			link = file
		}
	}
	if link != "" {
		c.at(entry, "navigation names page %q, but %s %v", pg, link, errLinkOutside)
		return
	}
	c.at(entry, "navigation names page %q, but no %s.mdx or %s.md exists", pg, pg, pg)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
