package analytics

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/folio-docs/folio/clientip"
	"github.com/folio-docs/folio/metrics"
)

// Reasons a log line is not stored.
const (
	SkipMalformed = "malformed line"
	SkipMethod    = "not a GET request"
	SkipStatus    = "not a successful response"
	SkipAsset     = "a static asset, not a page" // #nosec G101 -- a reason shown to the operator, no credential
	SkipPath      = "unusable path"
	SkipDuplicate = "imported before"
	SkipHeader    = "a header line of the log"
	SkipEvent     = "not a request or page-view entry"
)

// ImportStats is the summary of an import.
type ImportStats struct {
	Lines   int
	Stored  int
	Skipped map[string]int
	// Format is the format the lines were read in: auto's is the one it
	// found ("" when no line told).
	Format string
	// Unparsed are the first lines that did not parse (at most
	// MaxUnparsed), so a wrong --format shows at once.
	Unparsed []UnparsedLine
}

// UnparsedLine is a line that did not parse: the file, its number (from
// 1) and its text, cut to 200 bytes.
type UnparsedLine struct {
	File string
	Line int
	Text string
}

// MaxUnparsed is how many unparsed lines an import reports.
const MaxUnparsed = 5

// Add counts another import's lines into st.
func (st *ImportStats) Add(o ImportStats) {
	st.Lines += o.Lines
	st.Stored += o.Stored
	for k, v := range o.Skipped {
		st.Skipped[k] += v
	}
	if st.Format == "" {
		st.Format = o.Format
	}
	for _, u := range o.Unparsed {
		if len(st.Unparsed) < MaxUnparsed {
			st.Unparsed = append(st.Unparsed, u)
		}
	}
}

// ImportOptions say how to read a log.
type ImportOptions struct {
	// Format is the log's format; nil is CombinedFormat.
	Format LogFormat
	// Source names the server the log comes from (empty: the default), so
	// identical lines of two servers' logs are two views.
	Source string
	// Trusted are the proxies whose X-Forwarded-For names the client
	// (FOLIO_TRUSTED_PROXIES), for formats that log that header.
	Trusted clientip.Trusted
	// File names the log in reports of unparsed lines.
	File string
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

// ImportLog reads an access log (plain or gzip) in opts.Format and records
// its page views. Each stored line is remembered by a hash of its source,
// its text and how many identical lines came before it in this file (or,
// where the log has one, by its own event id), so importing the same file
// again, or a rotated file that overlaps one imported before, stores
// nothing new, while two identical requests in one second both count.
func (s *Service) ImportLog(ctx context.Context, projectID string, r io.Reader, opts ImportOptions) (ImportStats, error) {
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
	sc.Buffer(make([]byte, 64<<10), maxLogLine)
	lines := newLogLines(opts)
	batch := make([]Event, 0, MaxBatch)
	flush := func() error {
		err := s.storeLines(ctx, projectID, batch, &st)
		batch = batch[:0]
		return err
	}
	for sc.Scan() {
		if e, ok := lines.read(sc.Bytes(), &st); ok {
			batch = append(batch, e)
		}
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
	st.Format = lines.format()
	for k, v := range st.Skipped {
		if v == 0 {
			delete(st.Skipped, k)
		}
	}
	return st, nil
}

// maxLogLine is the longest line a log may have.
const maxLogLine = 1 << 20

// storeLines records imported views, counting what was stored and what
// was imported before into st.
func (s *Service) storeLines(ctx context.Context, projectID string, batch []Event, st *ImportStats) error {
	if len(batch) == 0 {
		return nil
	}
	n, _, err := s.record(ctx, projectID, batch, nil, nil, metrics.SourceImport)
	if err != nil {
		return err
	}
	st.Stored += n
	st.Skipped[SkipDuplicate] += len(batch) - n
	return nil
}

// logLines turns the lines of one file into page views, each keyed so a
// line read again is never stored twice.
type logLines struct {
	opts   ImportOptions
	parser LogParser
	n      int // lines read
	seen   map[[32]byte]seenLine
	newest int64
	// sweepAt is the size of seen at which lines older than an hour
	// before the newest are forgotten.
	sweepAt int
}

type seenLine struct {
	n  int
	at int64 // unix seconds
}

func newLogLines(opts ImportOptions) *logLines {
	if opts.Format == nil {
		opts.Format = CombinedFormat
	}
	return &logLines{opts: opts, parser: opts.Format.NewParser(), seen: map[[32]byte]seenLine{}, sweepAt: seenWindow}
}

// read reads the next line of the file (without its line ending) into st:
// a page view to store, or a reason it is none.
func (l *logLines) read(line []byte, st *ImportStats) (Event, bool) {
	l.n++
	st.Lines++
	r, reason := l.parser.Parse(line)
	var e Event
	if reason == "" {
		e, reason = pageView(r, l.opts.Trusted)
	}
	if reason == "" && e.At.After(time.Now().Add(maxFuture)) {
		// Not a view yet, as the events API and the drains say; and one
		// far off (nginx's $msec of 1e15 seconds) widened every all-time
		// query to its day: minutes for one visitors export.
		reason = SkipTime
	}
	if reason != "" {
		st.Skipped[reason]++
		if reason == SkipMalformed && len(st.Unparsed) < MaxUnparsed {
			text := string(line[:min(len(line), 200)])
			st.Unparsed = append(st.Unparsed, UnparsedLine{File: l.opts.File, Line: l.n, Text: text})
		}
		return Event{}, false
	}
	if r.ID != "" {
		e.LineHash = lineHash(l.opts.Source, sha256.Sum256([]byte("id\x00"+r.ID)), 0)
		return e, true
	}
	sum := sha256.Sum256(line)
	at := e.At.Unix()
	l.newest = max(l.newest, at)
	if len(l.seen) >= l.sweepAt {
		for k, v := range l.seen {
			if v.at < l.newest-seenSpan {
				delete(l.seen, k)
			}
		}
		// An hour busier than the window: sweep again only once the
		// map has doubled, so a sweep costs a line little on average.
		l.sweepAt = max(seenWindow, 2*len(l.seen))
	}
	nth := l.seen[sum].n
	l.seen[sum] = seenLine{n: nth + 1, at: at}
	e.LineHash = lineHash(l.opts.Source, sum, nth)
	return e, true
}

// format is the format the lines are read in: auto's once it found one.
func (l *logLines) format() string {
	if a, ok := l.parser.(*autoParser); ok {
		return a.Detected()
	}
	return l.opts.Format.Name()
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
