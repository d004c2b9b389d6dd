package doccheck

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckMDX(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // "line:col: substring", or "" for clean
	}{
		{"clean components", "<Steps>\n  <Step title=\"A\">\n    Run `{`.\n  </Step>\n</Steps>\n", ""},
		{"unclosed tag", "Intro.\n\n<Note>\nHi\n", "3:1: `<Note>` is never closed"},
		{"mismatched close", "<Note>\nHi\n</Tip>\n", "3:1: `</Tip>` does not close the open `<Note>` (line 1)"},
		{"close without open", "Hi\n\n</Note>\n", "3:1: `</Note>` closes a tag that was never opened"},
		{"inline tag left open in its paragraph", "Hello <b>world\n\nmore</b>\n", "1:7: `<b>` must be closed before the end of its paragraph"},
		{"inline tag in a heading", "## Setup <Badge>new\n", "1:10: `<Badge>` must be closed"},
		{"void element", "a<br>b\n", "1:2: `<br>` is never closed: in MDX write it self-closing"},
		{"unbalanced brace", "Set {name here.\n", "1:5: `{` opens an expression that is never closed"},
		{"brace in code span", "Use `{` and `<Note>`.\n", ""},
		{"brace in a fence with meta", "```js {1,3}\nf() {\n```\n", ""},
		{"brace in an indented fence", "<Step>\n      ```\n      {\n      ```\n</Step>\n", ""},
		{"indented text is not code", "    indented {x\n", "1:14: `{` opens an expression"},
		{"math", "Area $x^{2 b}$.\n", ""},
		{"lone dollar", "It costs $5 or {\n", "1:16: `{` opens"},
		{"prose in braces", "Call {foo bar} now.\n", "1:6: `{...}` is not a JavaScript expression"},
		{"json in prose", "Send {\"name\": \"w\"} now.\n", "1:6: `{...}` is not a JavaScript expression"},
		{"conditional", "{a ? b?.c : d ?? e}\n", ""},
		{"number then letters", "Width {1px}.\n", "1:7: `{...}` is not a JavaScript expression"},
		{"expressions", "{1 + 1} {a.b(c)} {/* note */} {cond && <b>x y</b>} {[1].map((n) => { return n })} {\"a } b\"}\n", ""},
		{"html comment", "<!-- x -->\n", "1:1: `<!--` comments are not MDX"},
		{"less than digit", "weighs <3 kg\n", "1:8: `<3` starts no tag"},
		{"less than space", "if a < b then\n", ""},
		{"autolink", "See <https://acme.com>.\n", "1:12: a tag name"},
		{"unquoted attribute", "<Card title=Foo>\nx\n</Card>\n", "1:13: the value of title in `<Card` must be quoted"},
		{"tag never finished", "<Card title=\"x\"\n", "1:1: the tag `<Card` is never finished"},
		{"escaped brace", "An \\{ brace.\n", ""},
		{"esm", "export const X = () => {\n  return <b>{1}</b>;\n};\n\n<X />\n", ""},
		{"prose starting with export", "Intro.\n\nexport the file to disk.\n", "3:1: a line starting with `import ` or `export `"},
		{"wide characters before the error", "Ünïcödé {\n", "1:9: `{` opens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			problems := checkMDX("p.mdx", parseMDX([]byte(tc.src), 0))
			if tc.want == "" {
				if len(problems) > 0 {
					t.Fatalf("problems = %v, want none", problems)
				}
				return
			}
			if len(problems) != 1 || !strings.Contains(problems[0].String(), "p.mdx:"+tc.want) {
				t.Fatalf("problems = %v, want one like p.mdx:%s", problems, tc.want)
			}
			if problems[0].Severity != SeverityError {
				t.Fatalf("severity = %q, want error", problems[0].Severity)
			}
		})
	}
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// FuzzCheckMDX: the checks never panic, every problem has a place inside
// the page, and nothing inside a code fence is ever MDX.
func FuzzCheckMDX(f *testing.F) {
	for _, seed := range []string{
		"<Note>\nHi\n", "a {b} c", "<Card title=\"x\" href={\"/a\"} />", "```\n{\n```", "$x^{2}$ {",
		"export const A = () => {\n\n  return 1\n}\n", "<a><b></a></b>", "## H <X>\n", "`{` <br/>", "<>\n\n</>", "\\{ \\<",
		"<Steps>\n\t<Step>\n\t\t```\n\t\t{\n\t\t```\n\t</Step>\n</Steps>\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		problems := checkMDX("p.mdx", parseMDX([]byte(src), 0))
		lines := strings.Count(src, "\n") + 1
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines || p.Column < 1 {
				t.Fatalf("problem %v is outside the page (%d lines)", p, lines)
			}
			line := strings.Split(src, "\n")[p.Line-1]
			if p.Column > utf8.RuneCountInString(line)+1 {
				t.Fatalf("problem %v is past the end of line %q", p, line)
			}
		}
		if strings.ContainsRune(src, '\r') || bytes.ContainsAny([]byte(src), "\x00") {
			return // goldmark and MDX disagree on bare carriage returns; not judged here
		}
		fence := strings.Repeat("`", max(3, longestRun(src, '`')+1))
		wrapped := fence + "\n" + src + "\n" + fence + "\n"
		if ps := checkMDX("p.mdx", parseMDX([]byte(wrapped), 0)); len(ps) > 0 {
			t.Fatalf("inside a code fence, %q gave problems %v", src, ps)
		}
	})
}
