package analytics

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/folio-docs/folio/model"
)

// Paging limits of the exports (CONTRACT §3).
const (
	DefaultLimit = 50
	MaxLimit     = 250
)

// Query is one export request: views with From <= time < To, unbounded
// where nil, and the page [Offset, Offset+Limit) of the ordered rows.
type Query struct {
	From, To *time.Time
	Limit    int
	Offset   int
}

// ParseQuery reads dateFrom, dateTo, limit and offset as the contract says,
// naming the parameter of every problem; nothing is clamped.
func ParseQuery(get func(string) string) (Query, model.FieldErrors) {
	q := Query{Limit: DefaultLimit}
	var problems model.FieldErrors
	q.From, q.To, problems = ParseRange(get)
	for _, n := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"limit", &q.Limit, 1, MaxLimit}, {"offset", &q.Offset, 0, math.MaxInt32}} {
		v := get(n.name)
		if v == "" {
			continue
		}
		i, err := ParseCount(v)
		if err != nil || i < n.min || i > n.max {
			msg := fmt.Sprintf("%s must be an integer from %d to %d; got %q.", n.name, n.min, n.max, v)
			if n.name == "offset" {
				msg = fmt.Sprintf("offset must be an integer of 0 or more; got %q.", v)
			}
			problems.Add(n.name, "%s", msg)
			continue
		}
		*n.dst = i
	}
	return q, problems
}

// ParseRange reads dateFrom and dateTo (either may be absent: unbounded).
// A bound finer than a millisecond is ceiled to the millisecond: views are
// kept to the millisecond, and a view at ms t is at or after a bound b
// exactly when t >= ceil(b), so the range means what was asked. Equal
// bounds are an empty range; dateFrom after dateTo is refused.
func ParseRange(get func(string) string) (from, to *time.Time, problems model.FieldErrors) {
	var raw [2]time.Time
	for i, b := range []struct {
		name string
		dst  **time.Time
	}{{"dateFrom", &from}, {"dateTo", &to}} {
		v := get(b.name)
		if v == "" {
			continue
		}
		t, err := ParseBound(v)
		if err != nil {
			problems.Add(b.name, "%s %q is not a date (YYYY-MM-DD) or an ISO 8601 date-time (e.g. 2026-01-02T15:04:05Z).", b.name, v)
			continue
		}
		raw[i] = t
		c := time.UnixMilli(ceilMillis(t)).UTC()
		*b.dst = &c
	}
	// Compared as given, not as ceiled: 10:00:00.0009 to 10:00:00.0005 is
	// backwards though both ceil to 10:00:00.001.
	if from != nil && to != nil && raw[0].After(raw[1]) {
		problems.Add("dateTo", "dateTo must not be before dateFrom (dateTo is exclusive; equal bounds are an empty range).")
	}
	return from, to, problems
}

// ParseCount reads a count parameter: a decimal integer, or an integral
// number in JSON's notation ("50.0", "5e1"), which is how clients typed
// from a schema that says "number" write one. A fraction ("50.5") or a
// number too large for an int32 is an error. The value is read exactly,
// never through a float ("50.0000000000000001" is not 50).
func ParseCount(s string) (int, error) {
	if i, err := strconv.Atoi(s); err == nil {
		if i > math.MaxInt32 || i < -math.MaxInt32 {
			return 0, fmt.Errorf("analytics: %q is out of range", s)
		}
		return i, nil
	}
	m := jsonNumber.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("analytics: %q is not a number", s)
	}
	neg, digits, exp := m[1] == "-", strings.TrimLeft(m[2]+m[3], "0"), 0
	if digits == "" {
		return 0, nil // zero, whatever its exponent
	}
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil { // an exponent beyond an int: far out of any range
			return 0, fmt.Errorf("analytics: %q is out of range", s)
		}
		exp = e
	}
	exp -= len(m[3])
	for strings.HasSuffix(digits, "0") {
		digits, exp = digits[:len(digits)-1], exp+1
	}
	switch {
	case exp < 0:
		return 0, fmt.Errorf("analytics: %q is not a whole number", s)
	case exp > 10 || len(digits) > 10 || len(digits)+exp > 10: // apart first: a sum could overflow
		return 0, fmt.Errorf("analytics: %q is out of range", s)
	}
	i, err := strconv.Atoi(digits + strings.Repeat("0", exp))
	if err != nil || i > math.MaxInt32 {
		return 0, fmt.Errorf("analytics: %q is out of range", s)
	}
	if neg {
		i = -i
	}
	return i, nil
}

// jsonNumber is RFC 8259's number: sign, integer part, fraction, exponent.
var jsonNumber = regexp.MustCompile(`^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$`)

// ParseBound reads a range bound: YYYY-MM-DD is that day's start in UTC; a
// full ISO 8601 date-time is that instant (UTC when it names no zone).
func ParseBound(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("analytics: %q is not a date or date-time", s)
}

// bounds are the query's range in stored unix milliseconds, exact: a view
// at ms t is in range when from <= t < to.
func (q Query) bounds() (int64, int64) {
	from, to := int64(math.MinInt64), int64(math.MaxInt64)
	if q.From != nil {
		from = ceilMillis(*q.From)
	}
	if q.To != nil {
		to = ceilMillis(*q.To)
	}
	return from, to
}

// ceilMillis is the first whole millisecond at or after t.
func ceilMillis(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}

// VisitorCounts are distinct visitors: human, AI, and both deduplicated.
type VisitorCounts struct {
	Human int `json:"human"`
	AI    int `json:"ai"`
	Total int `json:"total"`
}

// VisitorRow is one path's distinct visitors.
type VisitorRow struct {
	Path string `json:"path"`
	VisitorCounts
}

// Visitors is the visitors export.
type Visitors struct {
	Totals   VisitorCounts `json:"totals"`
	Visitors []VisitorRow  `json:"visitors"`
	HasMore  bool          `json:"hasMore"`
}

// ViewCounts are page views by class. Total is Human + AI, as Mintlify's
// export defines it: the crawler classes are reported beside it, never in it.
type ViewCounts struct {
	Human      int `json:"human"`
	AI         int `json:"ai"`
	AISearch   int `json:"aiSearch"`
	AITraining int `json:"aiTraining"`
	Bots       int `json:"bots"`
	Total      int `json:"total"`
}

// All is every page view of every class, crawlers included.
func (v ViewCounts) All() int { return v.Human + v.AI + v.AISearch + v.AITraining + v.Bots }

// ViewRow is one path's page views.
type ViewRow struct {
	Path string `json:"path"`
	ViewCounts
}

// Views is the views export.
type Views struct {
	Totals  ViewCounts `json:"totals"`
	Views   []ViewRow  `json:"views"`
	HasMore bool       `json:"hasMore"`
}

// readIndex runs fn over the project's up-to-date index, held for reading,
// with the query's bounds; a project without traffic runs nothing.
func (s *Service) readIndex(ctx context.Context, projectID string, q Query, fn func(x *index, from, to int64)) error {
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return err
	}
	for {
		if err := st.idx.refresh(ctx, s.db); err != nil {
			return err
		}
		st.idx.saveInBackground(s.db)
		st.idx.mu.RLock()
		if !st.idx.emptied.Load() {
			break
		}
		st.idx.mu.RUnlock() // rewrite let go of the index meanwhile: the refresh loads it again
	}
	defer st.idx.mu.RUnlock()
	from, to := q.bounds()
	fn(st.idx, from, to)
	return nil
}

// indexOrSQL counts with fromIndex over the project's index or, when the
// index tells apart too few of what is counted (lost), with inSQL in the
// site's database; counted is false for a project without traffic.
func indexOrSQL[R any](ctx context.Context, s *Service, projectID string, q Query, lost func(*index) bool,
	fromIndex func(x *index, from, to int64) R, inSQL func(site, from, to int64) (R, error)) (rows R, counted bool, err error) {
	site := int64(0) // set when SQL must count
	err = s.readIndex(ctx, projectID, q, func(x *index, from, to int64) {
		counted = true
		if lost(x) {
			site = x.site
			return
		}
		rows = fromIndex(x, from, to)
	})
	if err != nil || site == 0 {
		return rows, counted, err
	}
	from, to := q.bounds()
	rows, err = inSQL(site, from, to)
	return rows, counted, err
}

// Visitors counts distinct human and AI visitors per path and overall.
// Paths without a visitor in the range are not listed.
func (s *Service) Visitors(ctx context.Context, projectID string, q Query) (Visitors, error) {
	out := Visitors{Visitors: []VisitorRow{}}
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) { out = x.visitors(from, to, q) })
	return out, err
}

func (x *index) visitors(from, to int64, q Query) Visitors {
	out := Visitors{}
	if rows, ok := x.dayRows(from, to); ok {
		out.Totals = x.between(from, to)
		return x.pageOf(out, rows, q)
	}
	cand := x.pathsIn(from, to)
	n := len(x.paths)
	if cand != nil {
		n = len(cand)
	}
	rows := make([]VisitorRow, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	var wg sync.WaitGroup
	// The totals are the site's distinct visitors, from the per-day bitmaps.
	wg.Add(1)
	go func() {
		defer wg.Done()
		out.Totals = x.between(from, to)
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen *[2]bitset // for unsealed paths, made when first needed
			for i := w; i < n; i += workers {
				pi := i
				if cand != nil {
					pi = int(cand[i])
				}
				p := x.paths[pi]
				hlo, hhi := span(p.at[Human], from, to)
				alo, ahi := span(p.at[AI], from, to)
				if hlo == hhi && alo == ahi {
					continue
				}
				var c VisitorCounts
				if p.sealedFor(hhi, ahi) {
					c = p.countSealed(hlo, hhi, alo, ahi)
				} else {
					if seen == nil {
						seen = &[2]bitset{newBitset(x.nVisitors), newBitset(x.nVisitors)}
					}
					c = p.countWithBitsets(hlo, hhi, alo, ahi, seen)
				}
				rows[i] = VisitorRow{Path: p.name, VisitorCounts: c}
			}
		}()
	}
	wg.Wait()
	return x.pageOf(out, slices.DeleteFunc(rows, func(r VisitorRow) bool { return r.Total == 0 }), q)
}

// pageOf puts the query's page of rows, in the export's order, in out.
func (x *index) pageOf(out Visitors, rows []VisitorRow, q Query) Visitors {
	out.Visitors, out.HasMore = page(rows, q, func(a, b VisitorRow) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out
}

// countWithBitsets counts the distinct visitors of the spans by marking
// them in seen (all clear, and left so): for views the gaps do not cover.
func (p *pathViews) countWithBitsets(hlo, hhi, alo, ahi int, seen *[2]bitset) VisitorCounts {
	seenH, seenA := seen[Human], seen[AI]
	hv, av := p.vis[Human][hlo:hhi], p.vis[AI][alo:ahi]
	var c VisitorCounts
	for _, v := range hv {
		if seenH.set(v) {
			c.Human++
		}
	}
	aiOnly := 0
	for _, v := range av {
		if seenA.set(v) {
			c.AI++
			if !seenH.has(v) {
				aiOnly++
			}
		}
	}
	c.Total = c.Human + aiOnly
	for _, v := range hv {
		seenH.clear(v)
	}
	for _, v := range av {
		seenA.clear(v)
	}
	return c
}

// Views counts page views per path and overall, by class. Paths without a
// view in the range are not listed.
func (s *Service) Views(ctx context.Context, projectID string, q Query) (Views, error) {
	out := Views{Views: []ViewRow{}}
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) { out = x.views(from, to, q) })
	return out, err
}

func (x *index) views(from, to int64, q Query) Views {
	out := Views{}
	rows := make([]ViewRow, 0, len(x.paths))
	x.eachPath(from, to, func(p *pathViews) {
		var n [numClasses]int
		sum := 0
		for c := range numClasses {
			lo, hi := span(p.at[c], from, to)
			n[c] = hi - lo
			sum += n[c]
		}
		if sum == 0 {
			return
		}
		r := ViewRow{Path: p.name, ViewCounts: ViewCounts{Human: n[Human], AI: n[AI], AISearch: n[AISearch], AITraining: n[AITraining], Bots: n[Bot], Total: n[Human] + n[AI]}}
		rows = append(rows, r)
		t := &out.Totals
		t.Human, t.AI, t.AISearch, t.AITraining, t.Bots, t.Total = t.Human+r.Human, t.AI+r.AI, t.AISearch+r.AISearch, t.AITraining+r.AITraining, t.Bots+r.Bots, t.Total+r.Total
	})
	out.Views, out.HasMore = page(rows, q, func(a, b ViewRow) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out
}

// page is the rows [offset, offset+limit) in cmp's order and whether rows
// lie beyond. A page near the top (the usual) keeps only the best
// offset+limit rows in a heap instead of sorting them all: tens of
// thousands of paths, 25 shown.
func page[T any](rows []T, q Query, cmp func(a, b T) int) ([]T, bool) {
	k := q.Offset + q.Limit
	more := k < len(rows)
	if k < len(rows)/8 {
		rows = best(rows, k, cmp)
	} else {
		slices.SortFunc(rows, cmp)
	}
	lo := min(q.Offset, len(rows))
	hi := min(lo+q.Limit, len(rows))
	return slices.Clone(rows[lo:hi]), more
}

// best is the first k of rows in cmp's order, sorted: a heap whose root
// is the worst row kept.
func best[T any](rows []T, k int, cmp func(a, b T) int) []T {
	h := make([]T, 0, k)
	for _, r := range rows {
		if len(h) < k {
			h = append(h, r)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if cmp(h[i], h[p]) <= 0 {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if k == 0 || cmp(r, h[0]) >= 0 {
			continue
		}
		h[0] = r
		for i := 0; ; {
			w, l, rt := i, 2*i+1, 2*i+2
			if l < k && cmp(h[l], h[w]) > 0 {
				w = l
			}
			if rt < k && cmp(h[rt], h[w]) > 0 {
				w = rt
			}
			if w == i {
				break
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	slices.SortFunc(h, cmp)
	return h
}

// bitset is a set of dense visitor ids.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// set adds v and says whether it was new.
func (b bitset) set(v uint32) bool {
	w, m := v/64, uint64(1)<<(v%64)
	old := b[w]
	b[w] = old | m
	return old&m == 0
}

func (b bitset) has(v uint32) bool { return b[v/64]&(uint64(1)<<(v%64)) != 0 }

func (b bitset) clear(v uint32) { b[v/64] &^= uint64(1) << (v % 64) }

func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}
