package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	}
	for name, args := range tools {
		for _, p := range escapes {
			c, base := newTestCheckout(t)
			raw, _ := json.Marshal(args(p))
			out, err := c.call(name, raw)
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
	// search_files takes no path, and never reads .git or what lies outside.
	c, _ := newTestCheckout(t)
	for _, q := range []string{"core", "outside"} {
		out, err := c.call("search_files", json.RawMessage(`{"query":"`+q+`"}`))
		if err != nil || !strings.HasPrefix(out, "no matches") {
			t.Errorf("search_files(%q) = %q, %v; want no matches", q, out, err)
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
