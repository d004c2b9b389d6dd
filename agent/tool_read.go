package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// What one read_file call shows at most: a window of lines, like SWE-agent's
// viewer and Claude Code's Read, so a long page or a large OpenAPI file can
// be read in parts instead of being cut off.
const (
	maxReadLines    = 400
	maxReadBytes    = 32 << 10 // of the lines shown
	maxReadLineLen  = 1000     // bytes of one line shown; the rest is cut
	maxReadScanSize = 16 << 20 // read this far at most to count a file's lines
	binarySniffSize = 8 << 10
)

var readFileDesc = fmt.Sprintf("Read a text file of the repository. Each line is shown as its number, a tab, then the line's text (the number and the tab are not part of the file: leave them out of edit_file's old_string). At most %d lines or %d KB are shown at once, with a note saying which lines were left; read on with offset.", maxReadLines, maxReadBytes>>10)

func (c *checkout) readFile(a args) (string, error) {
	rel, err := c.resolve(a.str("path"), false)
	if err != nil {
		return "", err
	}
	offset, limit := a.int("offset", 1), a.int("limit", maxReadLines)
	if offset < 1 {
		return "", toolErrorf("offset %d is not a line number; lines count from 1", offset)
	}
	if limit < 1 {
		return "", toolErrorf("limit %d shows nothing; give at least 1 or leave it out", limit)
	}
	limit = min(limit, maxReadLines)
	f, err := c.root.Open(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fsError(rel, err)
	}
	if st.IsDir() {
		return "", toolErrorf("%s is a directory; use list_files", rel)
	}
	r := bufio.NewReaderSize(io.LimitReader(f, maxReadScanSize), 64<<10)
	if head, _ := r.Peek(binarySniffSize); bytes.IndexByte(head, 0) >= 0 {
		return "", toolErrorf("%s is a binary file (%d bytes) and cannot be read as text", rel, st.Size())
	}
	var out strings.Builder
	line, shown, last := 0, 0, 0
	full := false // the byte cap stopped the window early
	for {
		text, err := r.ReadString('\n')
		if text == "" && err != nil {
			if !errors.Is(err, io.EOF) {
				return "", fsError(rel, err)
			}
			break
		}
		line++
		if line < offset || full || shown == limit {
			continue // only counted
		}
		text = strings.TrimRight(text, "\r\n")
		if len(text) > maxReadLineLen {
			cut := maxReadLineLen
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = fmt.Sprintf("%s… (line cut: it has %d characters)", text[:cut], utf8.RuneCountInString(text))
		}
		entry := fmt.Sprintf("%6d\t%s\n", line, text)
		if shown > 0 && out.Len()+len(entry) > maxReadBytes {
			full = true
			continue
		}
		out.WriteString(entry)
		shown++
		last = line
	}
	total := line
	partial := st.Size() > maxReadScanSize // lines past the scan are not counted
	switch {
	case total == 0:
		return fmt.Sprintf("(%s is empty)", rel), nil
	case offset > total:
		return "", toolErrorf("offset %d is past the end of %s, which has %d lines", offset, rel, total)
	}
	of := fmt.Sprintf("%d", total)
	if partial {
		of = fmt.Sprintf("more than %d", total)
	}
	if offset > 1 || last < total || partial {
		fmt.Fprintf(&out, "… showed lines %d–%d of %s", offset, last, of)
		if last < total || partial {
			why := ""
			if full {
				why = fmt.Sprintf(" (one call shows at most %d KB)", maxReadBytes>>10)
			}
			fmt.Fprintf(&out, "%s; read on with offset %d", why, last+1)
		}
		out.WriteString("\n")
	}
	return out.String(), nil
}
