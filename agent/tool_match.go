package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// span is a part of a file to replace, and what goes in its place.
type span struct {
	start, end int
	repl       string
}

// maxTolerantOld bounds the old_string that is matched ignoring whitespace.
const maxTolerantOld = 64 << 10

// matchIgnoringWhitespace finds old in text as Aider's editor does when an
// exact match fails: the same words and punctuation, with any whitespace
// between them (other indentation, spaces, line endings). Each match's
// replacement is repl, shorn of the whitespace old had around its text, its
// lines indented by the difference between the file's indentation and
// old's, and with the file's line endings.
func matchIgnoringWhitespace(text, old, repl string) []span {
	words := strings.Fields(old)
	if len(words) == 0 || len(old) > maxTolerantOld {
		return nil
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	re, err := regexp.Compile(strings.Join(words, `\s+`))
	if err != nil {
		return nil
	}
	// The whitespace old has before its first word and after its last.
	lead := old[:len(old)-len(strings.TrimLeftFunc(old, unicode.IsSpace))]
	trail := old[len(strings.TrimRightFunc(old, unicode.IsSpace)):]
	oldIndent := lead[strings.LastIndexByte(lead, '\n')+1:]
	var spans []span
	for _, m := range re.FindAllStringIndex(text, -1) {
		r := repl
		r = strings.TrimPrefix(r, lead)
		if !strings.HasPrefix(repl, lead) {
			r = strings.TrimLeft(r, " \t")
		}
		r = strings.TrimSuffix(r, trail)
		// The indentation the file has where the match starts, if the match
		// starts its line.
		lineStart := strings.LastIndexByte(text[:m[0]], '\n') + 1
		fileIndent := text[lineStart:m[0]]
		if strings.TrimSpace(fileIndent) == "" {
			r = reindent(r, oldIndent, fileIndent)
		}
		if strings.Contains(text[m[0]:m[1]], "\r\n") || strings.HasSuffix(text[:m[0]], "\r\n") {
			r = strings.ReplaceAll(strings.ReplaceAll(r, "\r\n", "\n"), "\n", "\r\n")
		}
		spans = append(spans, span{m[0], m[1], r})
	}
	return spans
}

// reindent moves every line of s after the first from indentation from to
// indentation to: the file's, when old_string was written with another.
func reindent(s, from, to string) string {
	if from == to {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			continue
		}
		switch {
		case strings.HasPrefix(to, from): // the file is indented more
			lines[i] = to[len(from):] + lines[i]
		case strings.HasPrefix(from, to): // the file is indented less
			lines[i] = strings.TrimPrefix(lines[i], from[len(to):])
		}
	}
	return strings.Join(lines, "\n")
}

// lineList says where spans start: "line 4" or "lines 4, 9 and 12".
func lineList(text string, spans []span) string {
	var lines []string
	for _, s := range spans {
		lines = append(lines, strconv.Itoa(strings.Count(text[:s.start], "\n")+1))
	}
	lines = slices.Compact(lines)
	if len(lines) == 1 {
		return "line " + lines[0]
	}
	if len(lines) > 10 {
		lines = append(lines[:10], fmt.Sprintf("%d more", len(lines)-10))
	}
	return "lines " + andList(lines)
}

// Bounds of the search for the lines closest to an old_string that matched
// nowhere: the lines of old_string compared, and the work done.
const (
	maxClosestOldLines = 40
	maxClosestWork     = 4_000_000 // line comparisons
)

// lineNumbers looks like read_file's own prefix, copied into old_string.
var lineNumbers = regexp.MustCompile(`(?m)^ *\d+\t`)

// closestLines says, after old_string matched nowhere, which lines of the
// file are most like it (as Aider shows), numbered as read_file shows them,
// so the model can copy them exactly.
func closestLines(text, old string) string {
	hint := " Read the file and copy the text exactly."
	oldLines := strings.Split(strings.Trim(old, "\n"), "\n")
	if n := len(lineNumbers.FindAllString(old, -1)); n > 0 && n >= len(oldLines)/2 {
		hint = " old_string seems to hold read_file's line numbers: leave out each line's number and the tab after it."
	}
	fileLines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(oldLines) > maxClosestOldLines {
		oldLines = oldLines[:maxClosestOldLines]
	}
	k := len(oldLines)
	if len(fileLines) < k || len(fileLines)*k > maxClosestWork {
		return hint
	}
	oldGrams := make([][]uint64, k)
	for i, l := range oldLines {
		oldGrams[i] = bigrams(lineNumbers.ReplaceAllString(l, ""))
	}
	fileGrams := make([][]uint64, len(fileLines))
	for i, l := range fileLines {
		fileGrams[i] = bigrams(l)
	}
	best, bestScore := -1, 0.0
	for s := 0; s+k <= len(fileLines); s++ {
		score := 0.0
		for i := range k {
			score += dice(fileGrams[s+i], oldGrams[i])
		}
		if score /= float64(k); score > bestScore {
			best, bestScore = s, score
		}
	}
	if best < 0 || bestScore < 0.5 {
		return " No lines of the file are much like it." + hint
	}
	from, to := max(best-2, 0), min(best+k+2, len(fileLines))
	var b strings.Builder
	fmt.Fprintf(&b, " The closest lines are %d–%d (%d%% alike), shown with the lines around them:\n", best+1, best+k, int(bestScore*100))
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, cutLine(fileLines[i]))
	}
	b.WriteString(strings.TrimPrefix(hint, " "))
	return b.String()
}

// bigrams are a line's pairs of adjacent characters, whitespace collapsed
// and case folded, sorted.
func bigrams(line string) []uint64 {
	r := []rune(strings.ToLower(strings.Join(strings.Fields(line), " ")))
	if len(r) < 2 {
		if len(r) == 1 {
			return []uint64{uint64(r[0])}
		}
		return nil
	}
	g := make([]uint64, 0, len(r)-1)
	for i := 0; i+1 < len(r); i++ {
		g = append(g, uint64(r[i])<<32|uint64(r[i+1]))
	}
	slices.Sort(g)
	return g
}

// dice is the Sørensen–Dice similarity of two sorted bigram lists; two
// blank lines are alike.
func dice(a, b []uint64) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
