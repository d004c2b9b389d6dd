package analytics

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"time"
)

// Reasons a log line is not stored.
const (
	SkipMalformed = "malformed line"
	SkipMethod    = "not a GET request"
	SkipStatus    = "not a successful response"
	SkipAsset     = "a static asset, not a page"
	SkipPath      = "unusable path"
	SkipDuplicate = "imported before"
)

// ImportStats is the summary of an import.
type ImportStats struct {
	Lines   int
	Stored  int
	Skipped map[string]int
}

// assetExts are files a page loads, not pages a person reads.
var assetExts = map[string]bool{
	".css": true, ".js": true, ".mjs": true, ".map": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true,
	".svg": true, ".ico": true, ".webp": true, ".avif": true, ".woff": true, ".woff2": true, ".ttf": true, ".eot": true,
	".json": true, ".xml": true, ".webmanifest": true, ".mp4": true, ".webm": true, ".pdf": true, ".zip": true, ".wasm": true,
}

// seenWindow is how many distinct lines an import keeps counting before it
// forgets those an hour older than the newest: identical lines carry the
// same time to the second, and a log is in time order give or take the
// length of a slow request.
const (
	seenWindow = 1 << 17
	seenSpan   = 3600 // seconds
)

// ImportLog reads an nginx/Apache combined access log (plain or gzip) and
// records its page views. Each stored line is remembered by a hash of its
// source, its text and how many identical lines came before it in this
// file, so importing the same file again, or a rotated file that overlaps
// one imported before, stores nothing new, while two identical requests in
// one second both count. source names the server the log comes from
// (empty: the default), so identical lines of two servers' logs are two
// views.
func (s *Service) ImportLog(ctx context.Context, projectID string, r io.Reader, source string) (ImportStats, error) {
	st := ImportStats{Skipped: map[string]int{}}
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return st, fmt.Errorf("analytics: unable to read gzip log: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	type seenLine struct {
		n  int
		at int64 // unix seconds
	}
	seen := map[[32]byte]seenLine{}
	var newest int64
	sweepAt := seenWindow
	batch := make([]Event, 0, MaxBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		n, err := s.Record(ctx, projectID, batch)
		if err != nil {
			return err
		}
		st.Stored += n
		st.Skipped[SkipDuplicate] += len(batch) - n
		batch = batch[:0]
		return nil
	}
	for sc.Scan() {
		line := sc.Bytes()
		st.Lines++
		e, reason := parseCombined(line)
		if reason != "" {
			st.Skipped[reason]++
			continue
		}
		sum := sha256.Sum256(line)
		at := e.At.Unix()
		newest = max(newest, at)
		if len(seen) >= sweepAt {
			for k, v := range seen {
				if v.at < newest-seenSpan {
					delete(seen, k)
				}
			}
			// An hour busier than the window: sweep again only once the
			// map has doubled, so a sweep costs a line little on average.
			sweepAt = max(seenWindow, 2*len(seen))
		}
		nth := seen[sum].n
		seen[sum] = seenLine{n: nth + 1, at: at}
		e.LineHash = lineHash(source, sum, nth)
		batch = append(batch, e)
		if len(batch) == MaxBatch {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("analytics: unable to read the log after line %d: %w", st.Lines, err)
	}
	if err := flush(); err != nil {
		return st, err
	}
	for k, v := range st.Skipped {
		if v == 0 {
			delete(st.Skipped, k)
		}
	}
	return st, nil
}

// lineHash names the nth copy (from 0) of a line of a source's log. The
// default source keeps the hash of the lines imported before sources were.
func lineHash(source string, sum [32]byte, nth int) []byte {
	h := sha256.New()
	if source != "" {
		h.Write([]byte("source\x00" + source + "\x00"))
	}
	h.Write(sum[:])
	h.Write([]byte(strconv.Itoa(nth)))
	return h.Sum(nil)[:16]
}

// parseCombined reads one combined-format line:
//
//	IP - user [02/Jan/2006:15:04:05 -0700] "GET /path HTTP/1.1" 200 123 "referrer" "user agent"
func parseCombined(line []byte) (Event, string) {
	var e Event
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 {
		return e, SkipMalformed
	}
	ip := string(line[:sp])
	if _, err := netip.ParseAddr(ip); err != nil {
		return e, SkipMalformed
	}
	open, close := bytes.IndexByte(line, '['), bytes.IndexByte(line, ']')
	if open < 0 || close < open {
		return e, SkipMalformed
	}
	at, err := time.Parse("02/Jan/2006:15:04:05 -0700", string(line[open+1:close]))
	if err != nil {
		return e, SkipMalformed
	}
	rest := line[close+1:]
	request, rest, ok := quoted(rest)
	if !ok {
		return e, SkipMalformed
	}
	fields := strings.Fields(string(rest))
	if len(fields) < 1 {
		return e, SkipMalformed
	}
	status, err := strconv.Atoi(fields[0])
	if err != nil {
		return e, SkipMalformed
	}
	// Skip the size, then the referrer and the user agent.
	if i := bytes.IndexByte(rest, '"'); i >= 0 {
		rest = rest[i:]
	} else {
		return e, SkipMalformed
	}
	_, rest, ok = quoted(rest)
	if !ok {
		return e, SkipMalformed
	}
	ua, _, ok := quoted(rest)
	if !ok {
		return e, SkipMalformed
	}
	method, target, _ := strings.Cut(request, " ")
	target, _, _ = strings.Cut(target, " ")
	switch {
	case method != "GET":
		return e, SkipMethod
	case status < 200 || status >= 300 && status != 304:
		return e, SkipStatus
	}
	p, err := NormalizePath(target)
	if err != nil {
		return e, SkipPath
	}
	if assetExts[strings.ToLower(path.Ext(p))] {
		return e, SkipAsset
	}
	if ua == "-" {
		ua = ""
	}
	return Event{Path: p, At: at.UTC(), UserAgent: ua, IP: ip}, ""
}

// quoted reads the first double-quoted field of b (with \" escapes) and
// returns it and what follows.
func quoted(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return "", nil, false
	}
	var sb strings.Builder
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			if j+1 < len(b) {
				j++
				sb.WriteByte(b[j])
			}
		case '"':
			return sb.String(), b[j+1:], true
		default:
			sb.WriteByte(b[j])
		}
	}
	return "", nil, false
}
