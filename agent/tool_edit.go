package agent

import (
	"fmt"
	"path"
	"strings"
)

func (c *checkout) writeFile(a args) (string, error) {
	content := a.str("content")
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	if len(content) > maxWriteBytes {
		return "", toolErrorf("content is %d bytes; a file may have at most %d", len(content), maxWriteBytes)
	}
	if st, err := c.root.Stat(rel); err == nil && st.IsDir() {
		return "", toolErrorf("%s is a directory", rel)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := c.root.MkdirAll(dir, 0o755); err != nil {
			return "", fsError(dir, err)
		}
	}
	if err := c.root.WriteFile(rel, []byte(content), 0o644); err != nil {
		return "", fsError(rel, err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", rel, len(content)), nil
}

func (c *checkout) editFile(a args) (string, error) {
	old, repl := a.str("old_string"), a.str("new_string")
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	if old == "" {
		return "", toolErrorf("old_string is empty; use write_file to create or replace a whole file")
	}
	data, err := c.root.ReadFile(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	switch n := strings.Count(string(data), old); n {
	case 0:
		return "", toolErrorf("old_string was not found in %s; read the file and copy the text exactly", rel)
	case 1:
	default:
		return "", toolErrorf("old_string occurs %d times in %s; include more surrounding text so it occurs once", n, rel)
	}
	updated := strings.Replace(string(data), old, repl, 1)
	if len(updated) > maxWriteBytes {
		return "", toolErrorf("the edited file would be %d bytes; a file may have at most %d", len(updated), maxWriteBytes)
	}
	if err := c.root.WriteFile(rel, []byte(updated), 0o644); err != nil {
		return "", fsError(rel, err)
	}
	return fmt.Sprintf("edited %s", rel), nil
}

func (c *checkout) deleteFile(a args) (string, error) {
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	st, err := c.root.Lstat(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	if st.IsDir() {
		return "", toolErrorf("%s is a directory; delete its files one by one", rel)
	}
	if err := c.root.Remove(rel); err != nil {
		return "", fsError(rel, err)
	}
	return fmt.Sprintf("deleted %s", rel), nil
}
