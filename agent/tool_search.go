package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strings"
)

const (
	maxSearchHits = 100
	maxSearchFile = 1 << 20
	maxSearchLine = 240
)

func (c *checkout) searchFiles(a args) (string, error) {
	query := a.str("query")
	if strings.TrimSpace(query) == "" {
		return "", toolErrorf("query is empty")
	}
	needle := []byte(strings.ToLower(query))
	var hits []string
	err := fs.WalkDir(c.root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxSearchFile {
			return nil
		}
		data, err := c.root.ReadFile(name)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || !bytes.Contains(bytes.ToLower(data), needle) {
			return nil
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), maxSearchFile)
		for line := 1; sc.Scan(); line++ {
			if !bytes.Contains(bytes.ToLower(sc.Bytes()), needle) {
				continue
			}
			text := strings.TrimSpace(sc.Text())
			if len(text) > maxSearchLine {
				text = text[:maxSearchLine] + "…"
			}
			hits = append(hits, fmt.Sprintf("%s:%d: %s", name, line, text))
			if len(hits) > maxSearchHits {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		return "", toolErrorf("search failed: %v", err)
	}
	if len(hits) == 0 {
		return fmt.Sprintf("no matches for %q", query), nil
	}
	if len(hits) > maxSearchHits {
		return strings.Join(hits[:maxSearchHits], "\n") + fmt.Sprintf("\n… more than %d matches; search for something more specific", maxSearchHits), nil
	}
	return strings.Join(hits, "\n"), nil
}
