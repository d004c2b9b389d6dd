package doccheck

import (
	"bytes"
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Mintlify compiles every page as MDX, where `<` starts a JSX tag and `{`
// a JavaScript expression. checkMDX finds what the MDX compiler refuses:
// tags left open or closed out of order, `<` that starts no tag, `{` never
// closed, HTML comments, and ESM lines that are not import/export
// statements. goldmark finds the code (fenced blocks and code spans) in
// which none of that applies; the JSX and expression scan is our own.

// mdxDoc is a page prepared for the checks that need its structure.
type mdxDoc struct {
	src    []byte   // the page as written
	masked []byte   // the page with frontmatter, ESM and code blanked out (newlines kept)
	root   ast.Node // goldmark's tree of the page, with Markdown indentation ignored as MDX does
	flat   []byte   // the text goldmark parsed: each line without its leading whitespace
	toSrc  []int    // offset in flat → offset in src
	esm    []esmBlock
	tags   []jsxTag // every JSX tag found, for the link checks
}

type esmBlock struct {
	start, end int // byte offsets in src
}

// jsxTag is an opening tag and its string attributes, with where each starts.
type jsxTag struct {
	name  string
	off   int
	attrs map[string]jsxAttr
}

type jsxAttr struct {
	value string
	off   int
	expr  bool // written as an expression, {"..."}
}

// parseMDX prepares a page; body is where the content starts (after any frontmatter).
func parseMDX(src []byte, body int) *mdxDoc {
	d := &mdxDoc{src: src, masked: bytes.Clone(src)}
	blank(d.masked, 0, body)
	d.findESM(body)
	for _, b := range d.esm {
		blank(d.masked, b.start, b.end)
	}
	d.flat, d.toSrc = dedent(d.masked)
	d.root = mdxParser().Parse(text.NewReader(d.flat))
	d.maskCode()
	d.maskMath()
	return d
}

// maskMath blanks math: Mintlify reads `$...$` and `$$...$$` as LaTeX,
// whose braces are no expressions. A run of dollars closes on the next run
// of the same length within the same paragraph; `\$` is a literal dollar.
func (d *mdxDoc) maskMath() {
	b := d.masked
	open, openLen := -1, 0
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\' && i+1 < len(b):
			i++
		case b[i] == '\n' && len(bytes.TrimSpace(b[i+1:lineEnd(b, i+1)])) == 0 && openLen == 1:
			open, openLen = -1, 0 // inline math ends with its paragraph
		case b[i] == '$':
			j := i
			for j < len(b) && b[j] == '$' {
				j++
			}
			switch {
			case open < 0:
				open, openLen = i, j-i
			case j-i == openLen:
				blank(b, open, j)
				open, openLen = -1, 0
			}
			i = j - 1
		}
	}
}

// mdxParser is goldmark without what MDX turns off: indented code, HTML
// blocks, raw inline HTML and autolinks (all of them are JSX, or errors, in MDX).
func mdxParser() parser.Parser {
	var blocks, inlines []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		if v.Priority != 500 && v.Priority != 900 { // CodeBlockParser, HTMLBlockParser
			blocks = append(blocks, v)
		}
	}
	for _, v := range parser.DefaultInlineParsers() {
		if v.Priority != 300 && v.Priority != 400 { // AutoLinkParser, RawHTMLParser
			inlines = append(inlines, v)
		}
	}
	return parser.NewParser(
		parser.WithBlockParsers(blocks...),
		parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// dedent drops each line's leading spaces and tabs: in MDX indentation never
// makes code, and a fence may be indented as deep as its component nests it.
func dedent(src []byte) ([]byte, []int) {
	flat := make([]byte, 0, len(src))
	toSrc := make([]int, 0, len(src)+1)
	atLineStart := true
	for i, c := range src {
		if atLineStart && (c == ' ' || c == '\t') {
			continue
		}
		atLineStart = c == '\n'
		flat = append(flat, c)
		toSrc = append(toSrc, i)
	}
	toSrc = append(toSrc, len(src))
	return flat, toSrc
}

// maskCode blanks fenced code (with its info line) and code spans.
func (d *mdxDoc) maskCode() {
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if n.Info != nil {
				start := d.toSrc[n.Info.Segment.Start]
				blank(d.masked, start, lineEnd(d.src, start))
			}
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				blank(d.masked, d.toSrc[seg.Start], d.toSrc[seg.Stop])
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					blank(d.masked, d.toSrc[t.Segment.Start], d.toSrc[t.Segment.Stop])
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// blank replaces src[start:end] with spaces, keeping line breaks.
func blank(b []byte, start, end int) {
	for i := max(start, 0); i < end && i < len(b); i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
}

func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(b)
}

var (
	esmStart     = regexp.MustCompile(`^(?:import|export)[ \t]`)
	esmStatement = regexp.MustCompile(`^(?:import\s*(?:["'{*]|[\p{L}_$][\p{L}\p{N}_$]*\s*(?:,|from\b))|export\s+(?:const|let|var|function|async|class|default)\b|export\s*[{*])`)
	fenceLine    = regexp.MustCompile("^[ \t]*(`{3,}|~{3,})")
)

// findESM finds the import/export blocks: a line that starts with `import `
// or `export ` at the start of a block, up to the next blank line outside
// brackets. Code fences are skipped.
func (d *mdxDoc) findESM(body int) {
	var fence []byte
	prevBlank := true
	for i := body; i < len(d.src); {
		end := lineEnd(d.src, i)
		line := d.src[i:end]
		if m := fenceLine.FindSubmatch(line); m != nil {
			switch trimmed := bytes.TrimSpace(line); {
			case fence == nil:
				fence = m[1]
			case trimmed[0] == fence[0] && len(trimmed) >= len(fence) && len(bytes.Trim(trimmed, string(fence[:1]))) == 0:
				fence = nil
			}
		}
		if fence == nil && prevBlank && esmStart.Match(line) {
			start := i
			depth := 0
			for {
				depth += bracketDepth(d.src[i:end])
				next := end + 1
				if next >= len(d.src) {
					i = len(d.src)
					break
				}
				nextEnd := lineEnd(d.src, next)
				if depth <= 0 && len(bytes.TrimSpace(d.src[next:nextEnd])) == 0 {
					i = next
					break
				}
				i, end = next, nextEnd
			}
			d.esm = append(d.esm, esmBlock{start: start, end: min(i, len(d.src))})
			prevBlank = true
			continue
		}
		prevBlank = len(bytes.TrimSpace(line)) == 0
		i = end + 1
	}
}

// bracketDepth is how many brackets a line of JavaScript leaves open,
// skipping strings and line comments.
func bracketDepth(line []byte) int {
	depth := 0
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return depth
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == '}' || c == ')' || c == ']':
			depth--
		}
	}
	return depth
}

// checkMDX checks a page's MDX syntax. Problems carry line and column.
func checkMDX(p string, d *mdxDoc) []Problem {
	s := &mdxScan{doc: d, src: d.masked, path: p}
	for _, b := range d.esm {
		if !esmStatement.Match(d.src[b.start:]) {
			s.fail(b.start, "a line starting with `import ` or `export ` is JavaScript in MDX, and this is not an import or export statement: reword it or indent it")
		}
	}
	s.run()
	return s.problems
}

type mdxScan struct {
	doc      *mdxDoc
	src      []byte
	path     string
	i        int
	block    int // counts paragraphs and headings: inline tags must close in theirs
	stack    []openTag
	problems []Problem
}

type openTag struct {
	name   string
	off    int
	inline bool
	block  int
}

func (s *mdxScan) fail(off int, format string, args ...any) {
	line, col := lineCol(s.doc.src, off)
	s.problems = append(s.problems, Problem{Path: s.path, Line: line, Column: col, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
}

var atxHeading = regexp.MustCompile(`^[ \t]*#{1,6}(?:[ \t]|$)`)

func (s *mdxScan) run() {
	for s.i < len(s.src) && len(s.problems) == 0 {
		lineStart := s.i
		end := lineEnd(s.src, s.i)
		line := s.src[lineStart:end]
		if len(bytes.TrimSpace(line)) == 0 {
			s.endBlock()
		}
		s.scanLine(lineStart, end)
		if len(s.problems) > 0 {
			return
		}
		if atxHeading.Match(line) {
			s.endBlock()
		}
		if s.i <= end {
			s.i = end + 1
		}
	}
	if len(s.problems) > 0 {
		return
	}
	s.endBlock()
	if len(s.problems) == 0 && len(s.stack) > 0 {
		top := s.stack[len(s.stack)-1]
		s.fail(top.off, "%s", unclosedMessage(top.name))
	}
}

// endBlock closes a paragraph or heading: inline tags opened in it must be
// closed. The scan stops at its first problem, so the innermost one open is
// the one reported.
func (s *mdxScan) endBlock() {
	if n := len(s.stack); n > 0 {
		if top := s.stack[n-1]; top.inline && top.block == s.block {
			if voidElements[top.name] {
				s.fail(top.off, "%s", unclosedMessage(top.name))
			} else {
				s.fail(top.off, "`<%s>` must be closed before the end of its paragraph: add `</%s>` there", top.name, top.name)
			}
			return
		}
	}
	s.block++
}

func unclosedMessage(name string) string {
	if voidElements[name] {
		return fmt.Sprintf("`<%s>` is never closed: in MDX write it self-closing, `<%s />`", name, name)
	}
	if name == "" {
		return "the fragment `<>` is never closed: add `</>`"
	}
	return fmt.Sprintf("`<%s>` is never closed: add `</%s>` (or write `<%s />`)", name, name, name)
}

var voidElements = map[string]bool{"br": true, "img": true, "hr": true, "input": true, "meta": true, "link": true, "source": true, "col": true, "area": true, "wbr": true, "embed": true, "track": true}

// tagPrefix is what may stand before a tag on its line for the tag still to
// be a block of its own: indentation, list and quote markers, other tags.
var tagPrefix = regexp.MustCompile(`^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?[ \t>]*$`)

// scanLine scans one line; expressions and tags may run on past its end.
func (s *mdxScan) scanLine(lineStart, end int) {
	onlyTags := true // nothing but tags (and markers) so far on this line
	for s.i < len(s.src) && s.i <= end {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.i++
			return
		case c == '\\' && s.i+1 < len(s.src) && isASCIIPunct(s.src[s.i+1]):
			s.i += 2
			onlyTags = false
		case c == '{':
			start := s.i
			if !s.expression() {
				s.fail(start, "`{` opens an expression that is never closed: add the matching `}`, or write `\\{` for a literal brace")
				return
			}
			if !plausibleExpression(s.src[start+1 : s.i-1]) {
				s.fail(start, "`{...}` is not a JavaScript expression (two words in a row?): write `\\{` for a literal brace, or put it in `code`")
				return
			}
			onlyTags = false
			end = max(end, lineEnd(s.src, min(s.i, len(s.src))))
		case c == '<':
			start := s.i
			prefixOK := onlyTags && tagPrefix.Match(s.src[lineStart:start])
			if !s.tag(prefixOK) {
				return
			}
			if s.i > end {
				end = lineEnd(s.src, min(s.i, len(s.src)))
			}
			_ = start
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		default:
			if !(onlyTags && (c == '>' || c == '-' || c == '*' || c == '+' || (c >= '0' && c <= '9') || c == '.' || c == ')')) {
				onlyTags = false
			}
			s.i++
		}
	}
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && (c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~')
}

// expression skips a `{...}` expression starting at s.i, as JavaScript:
// strings, template literals and comments may hold braces. It reports
// whether the expression closes.
func (s *mdxScan) expression() bool {
	i, ok := skipExpression(s.src, s.i)
	s.i = i
	return ok
}

func skipExpression(src []byte, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		c := src[i]
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"', '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '`':
			j := i + 1
			for j < len(src) && src[j] != '`' {
				if src[j] == '\\' {
					j++
				} else if src[j] == '$' && j+1 < len(src) && src[j+1] == '{' {
					k, ok := skipExpression(src, j+1)
					if !ok {
						return len(src), false
					}
					j = k - 1
				}
				j++
			}
			i = j
		case '/':
			if i+1 < len(src) && src[i+1] == '*' {
				k := bytes.Index(src[i+2:], []byte("*/"))
				if k < 0 {
					return len(src), false
				}
				i += k + 3
			} else if i+1 < len(src) && src[i+1] == '/' {
				i = lineEnd(src, i)
				continue
			}
		}
		i++
	}
	return len(src), false
}

func isNameStart(r rune) bool {
	return r == '$' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f && (isLetter(r))
}

func isNameChar(r rune) bool {
	return isNameStart(r) || r == '-' || r >= '0' && r <= '9'
}

func isLetter(r rune) bool {
	return r != utf8.RuneError && !(r >= 0x2000 && r <= 0x206f) && r != 0xa0 && r != 0xfeff
}

func (s *mdxScan) peekRune(i int) (rune, int) {
	if i >= len(s.src) {
		return -1, 0
	}
	return utf8.DecodeRune(s.src[i:])
}

func (s *mdxScan) skipSpace() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// name reads a JSX name: identifiers joined by `.` (members) or `:` (namespace).
func (s *mdxScan) name() (string, bool) {
	start := s.i
	for {
		r, n := s.peekRune(s.i)
		if !isNameStart(r) {
			return "", false
		}
		s.i += n
		for {
			r, n = s.peekRune(s.i)
			if !isNameChar(r) {
				break
			}
			s.i += n
		}
		if s.i < len(s.src) && (s.src[s.i] == '.' || s.src[s.i] == ':') {
			s.i++
			continue
		}
		return string(s.src[start:s.i]), true
	}
}

// tag reads a tag at s.i (a `<`), and reports whether the scan may go on.
// prefixOK says only indentation or markers stand before it on its line.
func (s *mdxScan) tag(prefixOK bool) bool {
	start := s.i
	next, _ := s.peekRune(s.i + 1)
	switch {
	case next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == -1:
		s.i++ // `a < b`: a less-than sign, not a tag
		return true
	case next == '!':
		s.fail(start, "`<!--` comments are not MDX: write `{/* ... */}` instead")
		return false
	case next == '/':
		return s.closingTag(start, prefixOK)
	case next == '>':
		s.i += 2
		s.open("", start, prefixOK)
		return true
	case !isNameStart(next):
		s.fail(start, "`<%c` starts no tag: in MDX a `<` must open a tag; write `&lt;` or put it in `code`", next)
		return false
	}
	s.i++
	name, ok := s.name()
	if !ok {
		s.fail(s.i, "a tag name must be letters, digits, `-`, `.` or `:`; a link is written `[text](url)` in MDX")
		return false
	}
	t := jsxTag{name: name, off: start, attrs: map[string]jsxAttr{}}
	for {
		s.skipSpace()
		if s.i >= len(s.src) {
			s.fail(start, "the tag `<%s` is never finished: end it with `>` or `/>`", name)
			return false
		}
		c := s.src[s.i]
		switch {
		case c == '>':
			s.i++
			s.doc.tags = append(s.doc.tags, t)
			s.open(name, start, prefixOK)
			return true
		case c == '/':
			s.i++
			if s.i >= len(s.src) || s.src[s.i] != '>' {
				s.fail(s.i-1, "in the tag `<%s`, `/` must be followed by `>`", name)
				return false
			}
			s.i++
			s.doc.tags = append(s.doc.tags, t)
			return true
		case c == '{':
			at := s.i
			if !s.expression() {
				s.fail(at, "`{` in the tag `<%s` is never closed", name)
				return false
			}
			if !plausibleExpression(s.src[at+1 : s.i-1]) {
				s.fail(at, "`{...}` in the tag `<%s` is not a JavaScript expression", name)
				return false
			}
		default:
			attrStart := s.i
			attr, ok := s.name()
			if !ok {
				r, _ := s.peekRune(s.i)
				s.fail(s.i, "unexpected %q in the tag `<%s`: attributes are written name=\"value\" or name={expression}", r, name)
				return false
			}
			s.skipSpace()
			if s.i >= len(s.src) || s.src[s.i] != '=' {
				t.attrs[attr] = jsxAttr{off: attrStart}
				continue
			}
			s.i++
			s.skipSpace()
			if s.i >= len(s.src) {
				continue
			}
			switch q := s.src[s.i]; q {
			case '"', '\'':
				j := bytes.IndexByte(s.src[s.i+1:], q)
				if j < 0 {
					s.fail(s.i, "the value of %s in `<%s` is never closed with %c", attr, name, q)
					return false
				}
				t.attrs[attr] = jsxAttr{value: string(s.doc.src[s.i+1 : s.i+1+j]), off: s.i + 1}
				s.i += j + 2
			case '{':
				at := s.i
				if !s.expression() {
					s.fail(at, "the value of %s in `<%s` opens `{` and never closes it", attr, name)
					return false
				}
				if !plausibleExpression(s.src[at+1 : s.i-1]) {
					s.fail(at, "the value of %s in `<%s` is not a JavaScript expression", attr, name)
					return false
				}
				if v, ok := stringLiteral(s.doc.src[at+1 : s.i-1]); ok {
					t.attrs[attr] = jsxAttr{value: v, off: at + 1, expr: true}
				}
			default:
				s.fail(s.i, "the value of %s in `<%s` must be quoted (%s=\"...\") or an expression (%s={...})", attr, name, attr, attr)
				return false
			}
		}
	}
}

// stringLiteral is the value of a JavaScript expression that is only a
// string literal ({"/path"}), for the link checks.
func stringLiteral(expr []byte) (string, bool) {
	e := bytes.TrimSpace(expr)
	if len(e) >= 2 && (e[0] == '"' || e[0] == '\'' || e[0] == '`') && e[len(e)-1] == e[0] && !bytes.ContainsAny(e[1:len(e)-1], "\"'`$\\") {
		return string(e[1 : len(e)-1]), true
	}
	return "", false
}

// open records an opening tag: a tag alone on its line (after markers) is a
// block of its own and may span paragraphs; one inside text must close in it.
func (s *mdxScan) open(name string, start int, prefixOK bool) {
	inline := !prefixOK || !s.restIsTags()
	if !inline {
		s.endBlockIfText()
	}
	s.stack = append(s.stack, openTag{name: name, off: start, inline: inline, block: s.block})
}

// endBlockIfText ends an open paragraph before a block-level tag.
func (s *mdxScan) endBlockIfText() {
	if len(s.stack) > 0 {
		top := s.stack[len(s.stack)-1]
		if top.inline && top.block == s.block {
			s.endBlock()
		}
	}
}

// restIsTags reports whether the rest of the line holds only tags or nothing.
func (s *mdxScan) restIsTags() bool {
	rest := bytes.TrimLeft(s.src[s.i:lineEnd(s.src, s.i)], " \t\r")
	return len(rest) == 0 || rest[0] == '<'
}

func (s *mdxScan) closingTag(start int, prefixOK bool) bool {
	s.i += 2
	s.skipSpace()
	name := ""
	if s.i < len(s.src) && s.src[s.i] != '>' {
		n, ok := s.name()
		if !ok {
			s.fail(s.i, "a closing tag must name the tag it closes, like `</Note>`")
			return false
		}
		name = n
	}
	s.skipSpace()
	if s.i >= len(s.src) || s.src[s.i] != '>' {
		s.fail(start, "the closing tag `</%s` must end with `>`", name)
		return false
	}
	s.i++
	if len(s.stack) == 0 {
		s.fail(start, "`</%s>` closes a tag that was never opened", name)
		return false
	}
	top := s.stack[len(s.stack)-1]
	if top.inline && top.block != s.block {
		s.fail(top.off, "`<%s>` must be closed before the end of its paragraph: add `</%s>` there", top.name, top.name)
		return false
	}
	if top.name != name {
		line, _ := lineCol(s.doc.src, top.off)
		s.fail(start, "`</%s>` does not close the open `<%s>` (line %d): close that one first", name, top.name, line)
		return false
	}
	s.stack = s.stack[:len(s.stack)-1]
	if !top.inline && prefixOK && s.restIsTags() {
		s.block++ // a block-level tag ends whatever paragraph ran inside it
	}
	return true
}

// jsOperatorWords are JavaScript words that may stand between two operands
// (or before one): `typeof x`, `a in b`, `new X`.
var jsOperatorWords = map[string]bool{
	"in": true, "of": true, "instanceof": true, "typeof": true, "void": true, "delete": true, "new": true,
	"await": true, "yield": true, "async": true, "function": true, "class": true, "extends": true, "return": true,
	"var": true, "let": true, "const": true, "if": true, "else": true, "for": true, "while": true, "do": true,
	"case": true, "default": true, "throw": true, "try": true, "catch": true, "finally": true, "switch": true,
	"as": true, "satisfies": true, "get": true, "set": true, "static": true, "import": true, "export": true, "from": true,
}

// plausibleExpression reports whether expr may be one JavaScript expression,
// as the MDX compiler requires. It cannot parse JavaScript; it catches prose
// put in braces: two operands in a row at the expression's top level
// (`{foo bar}`, `{1px}`). Expressions holding JSX, regular expressions or
// template literals are given the benefit of the doubt.
func plausibleExpression(expr []byte) bool {
	if bytes.ContainsAny(expr, "<`") {
		return true
	}
	depth := 0
	prevOperand := false
	questions := 0 // open `?` of conditionals at the top level, each owed a `:`
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case depth == 0 && c == '?' && i+1 < len(expr) && (expr[i+1] == '.' || expr[i+1] == '?'):
			i += 2 // ?. and ??
			prevOperand = false
			continue
		case depth == 0 && c == '?':
			questions++
			prevOperand = false
		case depth == 0 && c == ':':
			if questions == 0 {
				return false // `{"name": "w"}` in prose: an object needs its own braces
			}
			questions--
			prevOperand = false
		case c == '/' && i+1 < len(expr) && expr[i+1] == '*':
			k := bytes.Index(expr[i+2:], []byte("*/"))
			if k < 0 {
				return true
			}
			i += k + 4
			continue
		case c == '/' && i+1 < len(expr) && expr[i+1] == '/':
			i = lineEnd(expr, i)
			continue
		case c == '/':
			return true // division or a regular expression: not judged
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
			continue
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 0 && prevOperand {
				return false
			}
			prevOperand = true
			i = j + 1
			continue
		case c == '{' || c == '(' || c == '[':
			if c == '{' {
				depth++
			}
			prevOperand = false
		case c == '}' || c == ')' || c == ']':
			if c == '}' {
				depth--
			}
			prevOperand = true
		case c == '.' && i+1 < len(expr) && expr[i+1] >= '0' && expr[i+1] <= '9', c >= '0' && c <= '9':
			j := i
			for j < len(expr) && (isWordByte(expr[j]) || expr[j] == '.') {
				j++
			}
			if depth == 0 && prevOperand {
				return false
			}
			// A number runs into letters: `1px` is a number, then a name.
			k := i
			for k < j && (expr[k] >= '0' && expr[k] <= '9' || expr[k] == '.' || expr[k] == '_') {
				k++
			}
			if depth == 0 && k < j && !(k == i+1 && expr[i] == '0') && !bytes.ContainsAny(expr[k:k+1], "eEnxXoObB") {
				return false
			}
			prevOperand = true
			i = j
			continue
		case isWordByte(c):
			j := i
			for j < len(expr) && isWordByte(expr[j]) {
				j++
			}
			if jsOperatorWords[string(expr[i:j])] {
				prevOperand = false
			} else {
				if depth == 0 && prevOperand {
					return false
				}
				prevOperand = true
			}
			i = j
			continue
		default:
			prevOperand = false
		}
		i++
	}
	return true
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
