package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-docs/folio/internal/testenv"
)

func newTestCheckout(t *testing.T) (*checkout, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "docs", "a.mdx"), []byte("---\ntitle: A\n---\nhello world\n"), 0o644)
	os.WriteFile(filepath.Join(base, "secret.txt"), []byte("outside"), 0o644)
	os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "docs", "out-file"))
	os.Symlink(base, filepath.Join(dir, "out-dir"))
	os.Symlink(".git", filepath.Join(dir, "gitlink"))
	c, err := openCheckout(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, base
}

// Every tool refuses every way out of the checkout, and .git.
func TestToolsRefusePathEscapes(t *testing.T) {
	escapes := []string{"../secret.txt", "/etc/passwd", "docs/../../secret.txt", "docs/out-file", "out-dir/secret.txt", ".git/config", "docs/.git/x", "gitlink/config", `..\secret.txt`, ".GIT/config"}
	tools := map[string]func(p string) map[string]string{
		"list_files": func(p string) map[string]string { return map[string]string{"path": p} },
		"read_file":  func(p string) map[string]string { return map[string]string{"path": p} },
		"write_file": func(p string) map[string]string { return map[string]string{"path": p, "content": "x"} },
		"edit_file": func(p string) map[string]string {
			return map[string]string{"path": p, "old_string": "outside", "new_string": "pwned"}
		},
		"delete_file": func(p string) map[string]string { return map[string]string{"path": p} },
		"move_file":   func(p string) map[string]string { return map[string]string{"from": p, "to": "docs/moved.mdx"} },
		"move_file to": func(p string) map[string]string {
			return map[string]string{"from": "docs/a.mdx", "to": p}
		},
	}
	for name, args := range tools {
		for _, p := range escapes {
			c, base := newTestCheckout(t)
			raw, _ := json.Marshal(args(p))
			out, err := c.call(strings.TrimSuffix(name, " to"), raw)
			var te *toolError
			if !errors.As(err, &te) {
				t.Errorf("%s(%q) = %q, %v; want a tool error", name, p, out, err)
			}
			if data, _ := os.ReadFile(filepath.Join(base, "secret.txt")); string(data) != "outside" {
				t.Fatalf("%s(%q) changed a file outside the checkout", name, p)
			}
			if data, _ := os.ReadFile(filepath.Join(base, "repo", ".git", "config")); string(data) != "[core]\n" {
				t.Fatalf("%s(%q) changed .git", name, p)
			}
		}
	}
	// search_files never reads .git or what lies outside, with or without a path.
	c, _ := newTestCheckout(t)
	for _, q := range []string{"core", "outside"} {
		out, err := c.call("search_files", json.RawMessage(`{"query":"`+q+`"}`))
		if err != nil || !strings.HasPrefix(out, "no matches") {
			t.Errorf("search_files(%q) = %q, %v; want no matches", q, out, err)
		}
		for _, p := range append(escapes, "../*", "**/.git/*", ".git/**", "out-dir/**", "/etc/*") {
			raw, _ := json.Marshal(map[string]string{"query": q, "path": p})
			out, err := c.call("search_files", raw)
			var te *toolError
			if !errors.As(err, &te) && !strings.HasPrefix(out, "no matches") {
				t.Errorf("search_files(%q in %q) = %q, %v; want a tool error or no matches", q, p, out, err)
			}
		}
	}
}

func TestTools(t *testing.T) {
	c, _ := newTestCheckout(t)
	do := func(name string, args map[string]string) (string, error) {
		raw, _ := json.Marshal(args)
		return c.call(name, raw)
	}
	cases := []struct {
		name    string
		args    map[string]string
		want    string
		wantErr bool
	}{
		{"write_file", map[string]string{"path": "guides/new.mdx", "content": "---\ntitle: New\n---\nfresh\n"}, "wrote guides/new.mdx", false},
		{"read_file", map[string]string{"path": "guides/new.mdx"}, "fresh", false},
		{"list_files", map[string]string{}, "guides/new.mdx", false},
		{"search_files", map[string]string{"query": "HELLO"}, "docs/a.mdx:4: hello world", false},
		{"edit_file", map[string]string{"path": "docs/a.mdx", "old_string": "hello", "new_string": "goodbye"}, "edited docs/a.mdx", false},
		{"edit_file", map[string]string{"path": "docs/a.mdx", "old_string": "hello", "new_string": "x"}, "was not found", true},
		{"edit_file", map[string]string{"path": "docs/a.mdx", "old_string": "-", "new_string": "x"}, "occurs 6 times", true},
		{"read_file", map[string]string{"path": "docs/missing.mdx"}, "does not exist", true},
		{"read_file", map[string]string{}, `argument "path" is required`, true},
		{"read_file", map[string]string{"path": "docs"}, "is a directory", true},
		{"delete_file", map[string]string{"path": "guides/new.mdx"}, "deleted guides/new.mdx", false},
		{"write_file", map[string]string{"path": "big.md", "content": strings.Repeat("x", maxWriteBytes+1)}, "at most", true},
		{"rm_rf", map[string]string{}, "there is no tool", true},
	}
	for _, tc := range cases {
		out, err := do(tc.name, tc.args)
		if err != nil {
			out = err.Error()
		}
		if (err != nil) != tc.wantErr || !strings.Contains(out, tc.want) {
			t.Errorf("%s(%v) = %q, err %v; want %q (error %v)", tc.name, tc.args, out, err, tc.want, tc.wantErr)
		}
	}
	if out, err := c.call("read_file", json.RawMessage(`"not an object"`)); err == nil {
		t.Errorf("malformed arguments accepted: %q", out)
	}
}

// callJSON runs a tool with arguments given as JSON text.
func callJSON(c *checkout, name, args string) (string, error) {
	return c.call(name, json.RawMessage(args))
}

// toolCase is a call of a tool, by its arguments, and what its result (or
// its refusal) must say.
type toolCase struct {
	args    string
	want    []string // in this order
	notWant []string
	wantErr bool
}

func checkToolCases(t *testing.T, c *checkout, tool string, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		out, err := callJSON(c, tool, tc.args)
		if err != nil {
			out = err.Error()
		}
		if (err != nil) != tc.wantErr {
			t.Errorf("%s(%s) = %q, error %v; want error %v", tool, tc.args, excerptText(out, 600), err, tc.wantErr)
			continue
		}
		rest := out
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s(%s) lacks %q (in order):\n%s", tool, tc.args, w, out)
				break
			}
			rest = rest[i+len(w):]
		}
		for _, nw := range tc.notWant {
			if strings.Contains(out, nw) {
				t.Errorf("%s(%s) shows %q:\n%s", tool, tc.args, nw, out)
			}
		}
	}
}

// read_file shows numbered lines, a window of them at a time, and says
// what it left out and how to read on.
func TestReadFileWindows(t *testing.T) {
	c, _ := newTestCheckout(t)
	var long strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&long, "line %d\r\n", i)
	}
	wide := strings.Repeat(strings.Repeat("w", 900)+"\n", 100)
	files := map[string]string{
		"long.mdx":  long.String(),
		"wide.mdx":  wide,
		"empty.mdx": "",
		"cut.mdx":   "short\n" + strings.Repeat("é", 3000) + "\n",
		"bin.png":   "\x89PNG\x00\x00",
		"nonl.mdx":  "one\ntwo",
	}
	testenv.WriteFiles(t, c.dir, files)
	checkToolCases(t, c, "read_file", []toolCase{
		{args: `{"path":"docs/a.mdx"}`, want: []string{"     1\t---\n", "     4\thello world\n"}, notWant: []string{"showed"}},
		{args: `{"path":"long.mdx"}`, want: []string{"     1\tline 1\n", "   400\tline 400\n", "… showed lines 1–400 of 1000; read on with offset 401"}, notWant: []string{"line 401", "\r"}},
		{args: `{"path":"long.mdx","offset":990}`, want: []string{"   990\tline 990\n", "  1000\tline 1000\n", "… showed lines 990–1000 of 1000\n"}, notWant: []string{"line 989\n", "read on"}},
		{args: `{"path":"long.mdx","offset":"10","limit":2}`, want: []string{"    10\tline 10\n    11\tline 11\n… showed lines 10–11 of 1000; read on with offset 12"}},
		{args: `{"path":"long.mdx","offset":null,"limit":100000}`, want: []string{"… showed lines 1–400 of 1000; read on with offset 401"}},
		{args: `{"path":"wide.mdx"}`, want: []string{"    36\t", "… showed lines 1–36 of 100 (one call shows at most 32 KB); read on with offset 37"}, notWant: []string{"    37\t"}},
		{args: `{"path":"cut.mdx"}`, want: []string{"     1\tshort\n", "é… (line cut: it has 3000 characters)"}},
		{args: `{"path":"nonl.mdx"}`, want: []string{"     1\tone\n     2\ttwo\n"}, notWant: []string{"showed"}},
		{args: `{"path":"empty.mdx"}`, want: []string{"(empty.mdx is empty)"}},
		{args: `{"path":"long.mdx","offset":1001}`, want: []string{"offset 1001 is past the end of long.mdx, which has 1000 lines"}, wantErr: true},
		{args: `{"path":"long.mdx","offset":0}`, want: []string{"lines count from 1"}, wantErr: true},
		{args: `{"path":"long.mdx","limit":0}`, want: []string{"limit 0 shows nothing"}, wantErr: true},
		{args: `{"path":"bin.png"}`, want: []string{"binary file"}, wantErr: true},
	})
	if out, _ := callJSON(c, "read_file", `{"path":"wide.mdx"}`); len(out) > maxReadBytes+200 {
		t.Errorf("read_file returned %d bytes, over its cap of %d", len(out), maxReadBytes)
	}
}

// Arguments a model got wrong are refused in words it can act on, never
// with Go's decoding errors.
func TestToolArgumentErrors(t *testing.T) {
	c, _ := newTestCheckout(t)
	cases := []struct {
		tool, args string
		want       string
	}{
		{"read_file", `"{\"path\": \"docs/a.mdx\""`, `the arguments are not valid JSON (they end before the object is closed): {"path": "docs/a.mdx". Send one JSON object, like {"path": "guides/quickstart.mdx"}`},
		{"read_file", `"path=docs/a.mdx"`, `the arguments are not valid JSON (unexpected 'p' at character 1): path=docs/a.mdx`},
		{"read_file", `"{\"path\": 'docs/a.mdx'}"`, `unexpected '\'' at character 10`},
		{"read_file", `[1,2]`, `the arguments must be a JSON object of named arguments, not a list; send one like {"path": "guides/quickstart.mdx"}`},
		{"read_file", `42`, `not the number 42`},
		{"read_file", `{"path": 7}`, `argument "path" must be a string, not the number 7`},
		{"read_file", `{"path": "docs/a.mdx", "offset": "ten"}`, `argument "offset" must be a whole number, like 40, not the text "ten"`},
		{"read_file", `{"path": "docs/a.mdx", "offset": 2.5}`, `argument "offset" must be a whole number`},
		{"read_file", `{"file_path": "docs/a.mdx"}`, `read_file has no argument "file_path"; its arguments are "path", "offset" and "limit"`},
		{"write_file", `{}`, `argument "path" is required; argument "content" is required`},
		{"write_file", `{"path": null, "content": ["a"]}`, `argument "path" is required; argument "content" must be a string, not a list`},
	}
	for _, tc := range cases {
		out, err := callJSON(c, tc.tool, tc.args)
		var te *toolError
		if !errors.As(err, &te) || !strings.Contains(te.msg, tc.want) {
			t.Errorf("%s(%s) = %q, %v; want a tool error containing %q", tc.tool, tc.args, out, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "unmarshal") || strings.Contains(err.Error(), "json:")) {
			t.Errorf("%s(%s) answers in Go's words: %v", tc.tool, tc.args, err)
		}
	}
	// Arguments encoded twice (an object inside a JSON string) are read as the object.
	if out, err := callJSON(c, "read_file", `"{\"path\":\"docs/a.mdx\"}"`); err != nil || !strings.Contains(out, "hello world") {
		t.Errorf("read_file of arguments encoded twice = %q, %v", out, err)
	}
}

// search_files narrows by folder, file or glob, reads a regular expression
// when asked, and shows context lines as grep does.
func TestSearchFiles(t *testing.T) {
	c, _ := newTestCheckout(t)
	files := map[string]string{
		"guides/install.mdx":    "---\ntitle: Install\n---\n\nRun `acme install`.\nThen acme login.\n\nUnrelated.\n\nacme logout ends it.\n",
		"guides/deep/flags.md":  "The --dry-run flag.\nAlso --DRY-RUN works.\n",
		"api/reference.mdx":     "acme api\n",
		"snippets/note.txt":     "acme snippet\n",
		"images/big.svg":        strings.Repeat("acme ", maxSearchFile/5+10),
		"guides/many.mdx":       strings.Repeat("acme\n", 150),
		"guides/shown-word.mdx": "shown\nshown\nplain\n",
	}
	testenv.WriteFiles(t, c.dir, files)
	checkToolCases(t, c, "search_files", []toolCase{
		{args: `{"query":"ACME LOG","path":"guides/install.mdx"}`, want: []string{"guides/install.mdx:6: Then acme login.\n", "guides/install.mdx:10: acme logout ends it.\n", "2 matches in 1 files"}, notWant: []string{"--\n"}},
		{args: `{"query":"acme log","path":"guides/install.mdx","context":1}`, want: []string{
			"guides/install.mdx-5- Run `acme install`.\nguides/install.mdx:6: Then acme login.\nguides/install.mdx-7- \n--\nguides/install.mdx-9- \nguides/install.mdx:10: acme logout ends it.\n"}},
		{args: `{"query":"acme (install|login)","regex":true,"path":"guides","context":2}`, want: []string{"guides/install.mdx-3- ---\n", "guides/install.mdx:5: Run `acme install`.\nguides/install.mdx:6: Then acme login.\n", "guides/install.mdx-8- Unrelated.\n", "2 matches in 1 files"}, notWant: []string{"\n--\n"}},
		{args: `{"query":"--dry-run","path":"**/*.md"}`, want: []string{"guides/deep/flags.md:1: The --dry-run flag.\nguides/deep/flags.md:2: Also --DRY-RUN works.\n"}},
		{args: `{"query":"(?-i)--dry-run","regex":"true","path":"guides/**/*.{md,mdx}"}`, want: []string{"guides/deep/flags.md:1:", "1 matches in 1 files"}, notWant: []string{"DRY-RUN"}},
		{args: `{"query":"acme","path":"*.txt"}`, want: []string{"snippets/note.txt:1: acme snippet\n1 matches in 1 files"}},
		{args: `{"query":"acme","path":"api/*"}`, want: []string{"api/reference.mdx:1: acme api\n1 matches in 1 files"}},
		{args: `{"query":"acme","path":"*.svg"}`, want: []string{`no matches for "acme" in *.svg (1 files over 1 MB were not searched)`}},
		{args: `{"query":"acme","path":"guides/many.mdx"}`, want: []string{"guides/many.mdx:100: acme\n… stopped after 100 matches in 1 files; narrow the search"}, notWant: []string{":101:"}},
		{args: `{"query":"shown","path":"guides/shown-word.mdx","context":1}`, want: []string{"guides/shown-word.mdx:1: shown\nguides/shown-word.mdx:2: shown\nguides/shown-word.mdx-3- plain\n2 matches"}},
		{args: `{"query":"nothing here"}`, want: []string{`no matches for "nothing here"`}},
		{args: `{"query":"(unclosed","regex":true}`, want: []string{"query is not a regular expression Go's RE2 reads: missing closing ): `(?i)(unclosed`"}, wantErr: true},
		{args: `{"query":"acme","context":11}`, want: []string{"context must be from 0 to 10 lines, not 11"}, wantErr: true},
		{args: `{"query":"acme","path":"nowhere/**"}`, want: []string{"nowhere does not exist"}, wantErr: true},
		{args: `{"query":"acme","path":"[bad"}`, want: []string{`path "[bad" is not a glob that can be read`}, wantErr: true},
	})
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, name string
		want       bool
	}{
		{"*.mdx", "a.mdx", true},
		{"*.mdx", "guides/deep/a.mdx", true},
		{"guides/*.mdx", "guides/a.mdx", true},
		{"guides/*.mdx", "guides/deep/a.mdx", false},
		{"guides/**/*.mdx", "guides/a.mdx", true},
		{"guides/**/*.mdx", "guides/deep/er/a.mdx", true},
		{"guides/**", "guides/deep/a.md", true},
		{"**/api/*", "v2/api/x.mdx", true},
		{"**/api/*", "api/x.mdx", true},
		{"api/*", "v2/api/x.mdx", false},
	} {
		if got := matchGlob(tc.glob, tc.name); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tc.glob, tc.name, got, tc.want)
		}
	}
	if got := expandBraces("a/*.{md,mdx}"); strings.Join(got, " ") != "a/*.md a/*.mdx" {
		t.Errorf("expandBraces = %q", got)
	}
}

// edit_file replaces one occurrence or, with replace_all, every one; when
// old_string matches nowhere exactly it takes the one place that differs
// only in whitespace, and otherwise shows the closest lines.
func TestEditFile(t *testing.T) {
	steps := "<Steps>\n  <Step title=\"Install\">\n    Run the installer.\n  </Step>\n</Steps>\n"
	cases := []struct {
		name, file string
		args       map[string]any
		want       string // the file after, if the edit succeeds
		result     []string
		wantErr    bool
	}{
		{name: "one exact", file: "a acme b\n",
			args: map[string]any{"old_string": "acme", "new_string": "Acme"}, want: "a Acme b\n", result: []string{"edited page.mdx: replaced 1 occurrence at line 1"}},
		{name: "several refused", file: "acme\nx\nacme\nacme\n",
			args:   map[string]any{"old_string": "acme", "new_string": "Acme"},
			result: []string{"old_string occurs 3 times in page.mdx, at lines 1, 3 and 4; include more surrounding text so it occurs once, or set replace_all"}, wantErr: true},
		{name: "replace_all", file: "acme\nx\nacme acme\n",
			args: map[string]any{"old_string": "acme", "new_string": "Acme", "replace_all": true}, want: "Acme\nx\nAcme Acme\n", result: []string{"replaced 3 occurrences at lines 1 and 3"}},
		{name: "indentation left out", file: steps,
			args:   map[string]any{"old_string": "<Step title=\"Install\">\n  Run the installer.\n</Step>", "new_string": "<Step title=\"Install\">\n  Run the installer, then sign in.\n</Step>"},
			want:   "<Steps>\n  <Step title=\"Install\">\n    Run the installer, then sign in.\n  </Step>\n</Steps>\n",
			result: []string{"replaced 1 occurrence at line 2; old_string matched only once differences in whitespace were ignored"}},
		{name: "indentation added", file: "- one\n- two\n",
			args: map[string]any{"old_string": "    - one\n    - two\n", "new_string": "    - one\n    - one and a half\n    - two\n"}, want: "- one\n- one and a half\n- two\n"},
		{name: "spaces and line endings", file: "---\r\ntitle: A\r\n---\r\n\r\nHello   world. \r\nBye.\r\n",
			args: map[string]any{"old_string": "Hello world.\nBye.", "new_string": "Hello, world.\nGoodbye."}, want: "---\r\ntitle: A\r\n---\r\n\r\nHello, world.\r\nGoodbye.\r\n"},
		{name: "tolerant but twice", file: "a  b\nx\na b\n",
			args:   map[string]any{"old_string": "a\tb", "new_string": "c"},
			result: []string{"old_string occurs 2 times in page.mdx when whitespace is ignored (it occurs nowhere exactly), at lines 1 and 3"}, wantErr: true},
		{name: "closest lines", file: "---\ntitle: Install\n---\n\n## Install the CLI\n\nRun `brew install acme` to get it.\nThen sign in.\n\n## Next\n",
			args:    map[string]any{"old_string": "Run `brew install acme-cli` to get it.\nThen log in.", "new_string": "x"},
			result:  []string{"old_string was not found in page.mdx. The closest lines are 7–8 (", "% alike), shown with the lines around them:\n     5\t## Install the CLI\n     6\t\n     7\tRun `brew install acme` to get it.\n     8\tThen sign in.\n     9\t\n    10\t## Next\nRead the file and copy the text exactly."},
			wantErr: true},
		{name: "line numbers copied", file: "one\ntwo\nthree\n",
			args:    map[string]any{"old_string": "     2\ttwo\n     3\tthree!", "new_string": "x"},
			result:  []string{"The closest lines are 2–3", "old_string seems to hold read_file's line numbers: leave out each line's number and the tab after it."},
			wantErr: true},
		{name: "nothing alike", file: "one\ntwo\n",
			args: map[string]any{"old_string": "zebra crossing", "new_string": "x"}, result: []string{"No lines of the file are much like it."}, wantErr: true},
		{name: "no change", file: "one\n",
			args: map[string]any{"old_string": "one", "new_string": "one"}, result: []string{"old_string and new_string are the same"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestCheckout(t)
			if err := c.root.WriteFile("page.mdx", []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.args["path"] = "page.mdx"
			raw, _ := json.Marshal(tc.args)
			out, err := c.call("edit_file", raw)
			if err != nil {
				out = err.Error()
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("edit_file = %q, error %v; want error %v", out, err, tc.wantErr)
			}
			for _, w := range tc.result {
				if !strings.Contains(out, w) {
					t.Errorf("edit_file result lacks %q:\n%s", w, out)
				}
			}
			got, _ := c.root.ReadFile("page.mdx")
			if want := tc.want; tc.wantErr || want == "" {
				want = tc.file
				if !tc.wantErr {
					return
				}
				if string(got) != want {
					t.Errorf("a refused edit changed the file:\n%q", got)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("file after edit =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// move_file moves a page, rewrites the links and the navigation entry that
// named it, and says what it did; it refuses to overwrite.
func TestMoveFile(t *testing.T) {
	c, _ := newTestCheckout(t)
	testenv.WriteFiles(t, c.dir, map[string]string{
		"docs.json":       `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":{"pages":["index","docs/a"]}}`,
		"index.mdx":       "---\ntitle: Home\n---\n\n[A](/docs/a) and [again](docs/a.mdx).\n",
		"docs/other.mdx":  "---\ntitle: Other\n---\n\n[A](./a#top)\n",
		"docs/broken.mdx": "---\ntitle: Broken\n---\n\n<Note>\n[A](./a)\n",
	})
	out, err := callJSON(c, "move_file", `{"from":"docs/a.mdx","to":"guides/a.mdx"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"moved docs/a.mdx to guides/a.mdx; rewrote 3 links in docs/other.mdx and index.mdx; updated navigation entries and redirects: 1 in docs.json.",
		"These pages do not compile, so their links were not read; fix any link in them to docs/a.mdx by hand: docs/broken.mdx.",
		"add one if the page was published",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("move_file result lacks %q:\n%s", want, out)
		}
	}
	for p, want := range map[string]string{
		"guides/a.mdx":   "---\ntitle: A\n---\nhello world\n",
		"index.mdx":      "---\ntitle: Home\n---\n\n[A](/guides/a) and [again](guides/a.mdx).\n",
		"docs/other.mdx": "---\ntitle: Other\n---\n\n[A](../guides/a#top)\n",
		"docs.json":      `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":{"pages":["index","guides/a"]}}`,
	} {
		if got, _ := c.root.ReadFile(p); string(got) != want {
			t.Errorf("%s after the move =\n%s\nwant\n%s", p, got, want)
		}
	}
	if _, err := c.root.Stat("docs/a.mdx"); err == nil {
		t.Error("docs/a.mdx is still there")
	}
	for args, want := range map[string]string{
		`{"from":"guides/a.mdx","to":"index.mdx"}`:    "index.mdx exists already",
		`{"from":"guides/a.mdx","to":"guides/a.mdx"}`: "there is nothing to move",
		`{"from":"docs","to":"elsewhere"}`:            "docs is a directory",
		`{"from":"nope.mdx","to":"x.mdx"}`:            "nope.mdx does not exist",
	} {
		if out, err := callJSON(c, "move_file", args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("move_file(%s) = %q, %v; want an error saying %q", args, out, err, want)
		}
	}
}

// Every edit runs the page and configuration checks on what it touched and
// returns their problems as path:line:column: message.
func TestEditsAreChecked(t *testing.T) {
	c, _ := newTestCheckout(t)
	testenv.WriteFiles(t, c.dir, map[string]string{
		"docs.json": `{"theme":"mint","name":"Acme","colors":{"primary":"#0D9373"},"navigation":{"pages":["index","docs/a"]}}`,
		"index.mdx": "---\ntitle: Home\n---\n\nRead [A](/docs/a).\n",
	})
	cases := []struct {
		tool, args string
		want       []string
		notWant    string
	}{
		{"write_file", `{"path":"notes.txt","content":"plain"}`, []string{"wrote notes.txt (5 bytes)"}, "Checks"},
		{"write_file", `{"path":"guides/new.mdx","content":"---\ntitle: New\n---\n\nSee [home](/index).\n"}`, []string{"wrote guides/new.mdx (40 bytes)\nChecks of guides/new.mdx: no problems."}, ""},
		{"write_file", `{"path":"guides/bad.mdx","content":"---\ntitle: Bad\n---\n\nSee [setup](/guides/setup) and [top](#nowhere).\n"}`, []string{
			"Checks of guides/bad.mdx found 2 problems (1 errors, which would fail Mintlify's build; 1 warnings, which build but read wrong). Fix them:",
			"\nguides/bad.mdx:5:5: link \"/guides/setup\" points at a page that does not exist",
			"\nguides/bad.mdx:5:32: link \"#nowhere\" names no heading of this page (warning)"}, ""},
		{"edit_file", `{"path":"guides/new.mdx","old_string":"title: New","new_string":"title: [New"}`, []string{"guides/new.mdx:2: the frontmatter is not valid YAML"}, ""},
		{"edit_file", `{"path":"docs.json","old_string":"\"docs/a\"","new_string":"\"docs/a\",\"docs/missing\""}`, []string{"Checks of docs.json found 1 problems", "\ndocs.json:1:102: navigation names page \"docs/missing\", but no docs/missing.mdx or docs/missing.md exists"}, ""},
		{"delete_file", `{"path":"docs/a.mdx"}`, []string{"deleted docs/a.mdx\nChecks of docs/a.mdx found", "\ndocs.json:1:93: navigation names page \"docs/a\"", "\nindex.mdx:5:6: link \"/docs/a\" points at a page this change deletes"}, ""},
		{"move_file", `{"from":"guides/bad.mdx","to":"guides/worse.mdx"}`, []string{"Checks of guides/bad.mdx and guides/worse.mdx found", "\nguides/worse.mdx:5:5: link \"/guides/setup\" points at a page that does not exist"}, ""},
	}
	for _, tc := range cases {
		out, err := callJSON(c, tc.tool, tc.args)
		if err != nil {
			t.Errorf("%s(%s): %v", tc.tool, tc.args, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s(%s) lacks %q:\n%s", tc.tool, tc.args, w, out)
			}
		}
		if tc.notWant != "" && strings.Contains(out, tc.notWant) {
			t.Errorf("%s(%s) says %q:\n%s", tc.tool, tc.args, tc.notWant, out)
		}
	}
}

// Every tool's strict schema is one OpenAI's strict mode accepts, and what
// a model held to it sends (nulls for what it leaves out) is accepted.
func TestStrictSchemas(t *testing.T) {
	for _, spec := range toolSpecs {
		s := spec.schema(true)
		props := s["properties"].(map[string]any)
		required := s["required"].([]string)
		if s["type"] != "object" || s["additionalProperties"] != false || len(required) != len(props) {
			t.Errorf("%s: strict schema %v: want an object allowing nothing else, every property required", spec.Name, s)
		}
		for _, name := range required {
			p, ok := props[name].(map[string]any)
			if !ok || p["description"] == "" {
				t.Errorf("%s: required %q has no described property", spec.Name, name)
				continue
			}
			optional := !slices.Contains(spec.Required, name)
			switch typ := p["type"].(type) {
			case string:
				if optional {
					t.Errorf("%s.%s: optional but not nullable", spec.Name, name)
				}
			case []any:
				if !optional || len(typ) != 2 || typ[1] != "null" {
					t.Errorf("%s.%s: type %v", spec.Name, name, typ)
				}
			}
		}
		if plain := spec.schema(false); plain["additionalProperties"] != false || len(plain["properties"].(map[string]any)) != len(props) {
			t.Errorf("%s: plain schema %v", spec.Name, plain)
		}
	}
	c, _ := newTestCheckout(t)
	for _, call := range []struct{ tool, args string }{
		{"list_files", `{"path":null}`},
		{"read_file", `{"path":"docs/a.mdx","offset":null,"limit":null}`},
		{"search_files", `{"query":"hello","regex":null,"path":null,"context":null}`},
		{"edit_file", `{"path":"docs/a.mdx","old_string":"hello","new_string":"hi","replace_all":null}`},
	} {
		if out, err := callJSON(c, call.tool, call.args); err != nil {
			t.Errorf("%s(%s) = %q, %v", call.tool, call.args, out, err)
		}
	}
}
