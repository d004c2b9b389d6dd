package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/handlers/httpx"
)

// FuzzQueryParams: the export and list query parsers either accept a query
// whose named parameters each have one non-empty value, within the
// contract's ranges, or refuse it with a 400 naming one of the parameters.
func FuzzQueryParams(f *testing.F) {
	for _, q := range []string{
		"dateFrom=2026-04-01&dateTo=2026-04-08&limit=50&offset=100",
		"dateFrom=2026-04-01T10:00:00Z&dateTo=2026-04-01T10:00:00.123456Z",
		"dateFrom=2026-04-08&dateTo=2026-04-01", "dateFrom=2026-04-01&dateTo=2026-04-01",
		"dateFrom=2026-04-01T10:00:00.123456789&limit=50.0", "limit=50.5", "offset=1e3",
		"limit=0", "limit=251", "limit=&offset=-1", "limit=5&limit=6",
		"datefrom=2026-04-01", "dateFrom=2026-13-01", "dateFrom=2026-04-01T10:00:00%2B02:00",
		"status=active&limit=100&offset=0", "status=archived", "status=ACTIVE", "status=",
		"offset=2147483647", "offset=2147483648", "limit=%zz", "limit=1e2", "limit=+5", ";limit=5",
	} {
		f.Add(q)
	}
	exportNames := []string{"dateFrom", "dateTo", "limit", "offset"}
	listNames := []string{"limit", "offset", "status"}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.RawQuery = rawQuery

		// The export's parameters, as analyticsExport reads them.
		q, e := httpx.QueryOf(r, exportNames...)
		if e != nil {
			checkNamed(t, rawQuery, e, exportNames)
		} else {
			checkOnce(t, rawQuery, q, exportNames)
			aq, problems := analytics.ParseQuery(q.Get)
			if problems != nil {
				for _, p := range problems {
					if !slices.Contains(exportNames, p.Field) || p.Message == "" {
						t.Fatalf("%q: problem %+v names no export parameter", rawQuery, p)
					}
				}
			} else {
				if aq.Limit < 1 || aq.Limit > analytics.MaxLimit || aq.Offset < 0 {
					t.Fatalf("%q: accepted out of range: %+v", rawQuery, aq)
				}
				if aq.From != nil && aq.To != nil && aq.From.After(*aq.To) {
					t.Fatalf("%q: accepted dateFrom %v after dateTo %v", rawQuery, aq.From, aq.To)
				}
				for _, b := range []*time.Time{aq.From, aq.To} {
					if b != nil && b.Nanosecond()%int(time.Millisecond) != 0 {
						t.Fatalf("%q: bound %v not ceiled to the millisecond", rawQuery, b)
					}
				}
			}
		}

		// The job list's parameters, as List reads them.
		q, e = httpx.QueryOf(r, listNames...)
		if e != nil {
			checkNamed(t, rawQuery, e, listNames)
			return
		}
		checkOnce(t, rawQuery, q, listNames)
		for _, p := range []struct {
			name       string
			def, lo, h int
		}{{"limit", 20, 1, 100}, {"offset", 0, 0, 1<<31 - 1}} {
			raw := q.Get(p.name)
			n, e := intParam(raw, p.name, p.def, p.lo, p.h)
			if e != nil {
				checkNamed(t, rawQuery, e, []string{p.name})
				continue
			}
			if n < p.lo || n > p.h {
				t.Fatalf("%q: %s=%d accepted outside %d..%d", rawQuery, p.name, n, p.lo, p.h)
			}
			if raw == "" && n != p.def {
				t.Fatalf("%q: absent %s gave %d, not the default %d", rawQuery, p.name, n, p.def)
			}
			if raw != "" {
				if want, err := strconv.Atoi(raw); err != nil || want != n {
					t.Fatalf("%q: %s=%q read as %d", rawQuery, p.name, raw, n)
				}
			}
		}
	})
}

// checkNamed asserts e is a 400 about exactly one of names.
func checkNamed(t *testing.T, rawQuery string, e *httpx.Error, names []string) {
	t.Helper()
	checkErrorShape(t, e)
	if e.Status != http.StatusBadRequest || len(e.Details) != 1 || !slices.Contains(names, e.Details[0].Field) {
		t.Fatalf("%q: refusal %+v does not name one of %v", rawQuery, e, names)
	}
	if !strings.Contains(e.Message, e.Details[0].Field) {
		t.Fatalf("%q: message %q does not name %q", rawQuery, e.Message, e.Details[0].Field)
	}
}

// checkOnce asserts every named parameter of q is absent or given once, not empty.
func checkOnce(t *testing.T, rawQuery string, q url.Values, names []string) {
	t.Helper()
	for _, n := range names {
		if vs, ok := q[n]; ok && (len(vs) != 1 || vs[0] == "") {
			t.Fatalf("%q: accepted %s=%q", rawQuery, n, vs)
		}
	}
}
