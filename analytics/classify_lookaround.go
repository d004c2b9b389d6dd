package analytics

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Some upstream patterns (device-detector's, isbot's) are written for
// regular expression engines with look-around, such as `(?<!cu)bots?` or
// `google(?!app)`, which Go's regexp does not have. lookaroundLeaves turns
// such a pattern into leaves Go can run: its alternations that hold a
// look-around are spread into one leaf per alternative, and each
// remaining look-around becomes an empty named group whose position the
// leaf then checks by itself (a negative look-behind: the text before it
// must not end with a match; a look-ahead: the text after it must not, or
// must, start with one). A leaf can miss a match that only another
// alignment of its groups would give; it never reports one that is not.

// lookaround is one look-around of a leaf, at the position of its group.
type lookaround struct {
	group    int
	ahead    bool
	negative bool
	re       *regexp.Regexp
	// width bounds a look-behind's match (0: unbounded), so only that
	// much text before the position is searched.
	width int
}

// leaf is a pattern Go can run plus the look-arounds it must check.
type leaf struct {
	re     *regexp.Regexp
	source string // the Go pattern, look-arounds made empty groups
	checks []lookaround
	// follows, when set, must hold of the text before a match: a
	// look-behind every match of the pattern has (device-detector's
	// patterns must start a word).
	follows func(before string) bool
}

// matches says whether the leaf matches text with its look-arounds holding.
func (l *leaf) matches(text string) bool {
	if !l.re.MatchString(text) {
		return false
	}
	if len(l.checks) == 0 {
		if l.follows == nil {
			return true
		}
		for _, m := range l.re.FindAllStringIndex(text, -1) {
			if l.follows(text[:m[0]]) {
				return true
			}
		}
		return false
	}
	for _, m := range l.re.FindAllStringSubmatchIndex(text, -1) {
		ok := l.follows == nil || l.follows(text[:m[0]])
		for _, c := range l.checks {
			if !ok {
				break
			}
			pos := m[2*c.group]
			if pos < 0 {
				ok = false
				break
			}
			var hit bool
			switch {
			case c.ahead:
				hit = c.re.MatchString(text[pos:])
			case c.width > 0:
				hit = c.re.MatchString(text[max(0, pos-c.width):pos])
			default:
				hit = c.re.MatchString(text[:pos])
			}
			if hit == c.negative {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// lookaroundLeaves compiles pattern into leaves; flags (such as "(?i)")
// apply to every part. A pattern without look-around is one leaf.
func lookaroundLeaves(flags, pattern string) ([]leaf, error) {
	var variants []string
	if err := spread(pattern, &variants, 0); err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	out := make([]leaf, 0, len(variants))
	for _, v := range variants {
		l, err := compileLeaf(flags, v)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
		out = append(out, l)
	}
	return out, nil
}

func hasLookaround(s string) bool {
	return strings.Contains(s, "(?<!") || strings.Contains(s, "(?<=") || strings.Contains(s, "(?!") || strings.Contains(s, "(?=")
}

func isLookaround(item string) bool {
	for _, p := range []string{"(?<!", "(?<=", "(?!", "(?="} {
		if strings.HasPrefix(item, p) {
			return true
		}
	}
	return false
}

// spread appends to out the variants of p in which every look-around
// stands at the top level of a concatenation.
func spread(p string, out *[]string, depth int) error {
	if depth > 8 {
		return fmt.Errorf("look-arounds nested too deep")
	}
	if !hasLookaround(p) {
		*out = append(*out, p)
		return nil
	}
	items, err := topItems(p)
	if err != nil {
		return err
	}
	if alts := splitItems(items); len(alts) > 1 {
		for _, a := range alts {
			if err := spread(strings.Join(a, ""), out, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for i, it := range items {
		if isLookaround(it) || !hasLookaround(it) {
			continue
		}
		// A group holding a look-around: one variant per alternative of
		// its inside (and one without it when the group is optional).
		body, quant := splitQuantifier(it)
		if quant != "" && quant != "?" {
			return fmt.Errorf("a repeated group holds a look-around")
		}
		inner := strings.TrimSuffix(body, ")")
		switch {
		case strings.HasPrefix(inner, "(?:"):
			inner = inner[3:]
		case strings.HasPrefix(inner, "(?"):
			return fmt.Errorf("an unsupported group holds a look-around")
		default:
			inner = inner[1:]
		}
		before, after := strings.Join(items[:i], ""), strings.Join(items[i+1:], "")
		innerItems, err := topItems(inner)
		if err != nil {
			return err
		}
		alts := splitItems(innerItems)
		for _, a := range alts {
			part := "(?:" + strings.Join(a, "") + ")"
			if len(alts) == 1 && quant == "" {
				// A lone alternative: its items join the concatenation.
				part = strings.Join(a, "")
			}
			if err := spread(before+part+after, out, depth+1); err != nil {
				return err
			}
		}
		if quant == "?" {
			if err := spread(before+after, out, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	// Only top-level look-arounds are left.
	*out = append(*out, p)
	return nil
}

// compileLeaf turns the top-level look-arounds of p into named empty
// groups and compiles it.
func compileLeaf(flags, p string) (leaf, error) {
	items, err := topItems(p)
	if err != nil {
		return leaf{}, err
	}
	type pending struct {
		name            string
		ahead, negative bool
		inner           string
	}
	var checks []pending
	var b strings.Builder
	for _, it := range items {
		if !isLookaround(it) {
			b.WriteString(it)
			continue
		}
		var pd pending
		switch {
		case strings.HasPrefix(it, "(?<!"):
			pd = pending{negative: true, inner: it[4 : len(it)-1]}
		case strings.HasPrefix(it, "(?<="):
			pd = pending{inner: it[4 : len(it)-1]}
		case strings.HasPrefix(it, "(?!"):
			pd = pending{ahead: true, negative: true, inner: it[3 : len(it)-1]}
		default:
			pd = pending{ahead: true, inner: it[3 : len(it)-1]}
		}
		pd.name = fmt.Sprintf("lookaround%d", len(checks))
		checks = append(checks, pd)
		b.WriteString("(?P<" + pd.name + ">)")
	}
	source := flags + "(?:" + b.String() + ")"
	re, err := regexp.Compile(source)
	if err != nil {
		return leaf{}, err
	}
	l := leaf{re: re, source: source}
	for _, pd := range checks {
		var cs string
		if pd.ahead {
			cs = flags + "^(?:" + pd.inner + ")"
		} else {
			cs = flags + "(?:" + pd.inner + ")$"
		}
		cre, err := regexp.Compile(cs)
		if err != nil {
			return leaf{}, err
		}
		la := lookaround{group: re.SubexpIndex(pd.name), ahead: pd.ahead, negative: pd.negative, re: cre}
		if !pd.ahead {
			if parsed, err := syntax.Parse(pd.inner, syntax.Perl); err == nil {
				la.width, _ = maxWidth(parsed)
			}
		}
		l.checks = append(l.checks, la)
	}
	return l, nil
}

// classEnd is the index of the "]" that closes the character class opening
// at p[i], or len(p) (or more) when none does. A "]" first in the class, or
// after "^", is a member, not its end.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for j < len(p) && p[j] != ']' {
		if p[j] == '\\' {
			j++
		}
		j++
	}
	return j
}

// topItems splits a pattern into its top-level items: atoms with their
// quantifiers, and "|".
func topItems(p string) ([]string, error) {
	var items []string
	for i := 0; i < len(p); {
		start := i
		switch p[i] {
		case '|':
			i++
			items = append(items, "|")
			continue
		case '\\':
			i += 2
		case '[':
			j := classEnd(p, i)
			if j >= len(p) {
				return nil, fmt.Errorf("unclosed [")
			}
			i = j + 1
		case '(':
			depth := 0
			j := i
			for ; j < len(p); j++ {
				switch p[j] {
				case '\\':
					j++
				case '[':
					j = classEnd(p, j)
				case '(':
					depth++
				case ')':
					depth--
				}
				if depth == 0 {
					break
				}
			}
			if j >= len(p) {
				return nil, fmt.Errorf("unclosed (")
			}
			i = j + 1
		default:
			i++
		}
		if i > len(p) {
			return nil, fmt.Errorf("pattern ends in \\")
		}
		// A quantifier belongs to the atom before it.
		for i < len(p) {
			switch p[i] {
			case '*', '+', '?':
				i++
				continue
			case '{':
				if j := strings.IndexByte(p[i:], '}'); j > 0 {
					i += j + 1
					continue
				}
			}
			break
		}
		items = append(items, p[start:i])
	}
	return items, nil
}

// splitItems splits top-level items at "|".
func splitItems(items []string) [][]string {
	out := [][]string{nil}
	for _, it := range items {
		if it == "|" {
			out = append(out, nil)
			continue
		}
		out[len(out)-1] = append(out[len(out)-1], it)
	}
	return out
}

// splitQuantifier separates a group item from its quantifier.
func splitQuantifier(item string) (string, string) {
	end := strings.LastIndexByte(item, ')')
	return item[:end+1], item[end+1:]
}

// maxWidth is the most bytes a match of re can span, when that is bounded
// and re has no anchors or word boundaries (which a window of the text
// would change); ok is false otherwise.
func maxWidth(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		if re.Flags&syntax.FoldCase != 0 {
			n *= 3 // a folded rune may encode longer
		}
		return n, true
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpEmptyMatch:
		return 0, true
	case syntax.OpCapture:
		return maxWidth(re.Sub[0])
	case syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		w, ok := maxWidth(re.Sub[0])
		return w * re.Max, ok
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			w, ok := maxWidth(s)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				total += w
			} else {
				total = max(total, w)
			}
		}
		return total, true
	}
	return 0, false
}
