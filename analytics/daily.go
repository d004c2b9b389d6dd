package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

// The dashboard's range (CONTRACT §6): a default when none is asked for,
// and the longest range typed by hand (All time has no bound).
const (
	DefaultRangeDays = 30
	MaxRangeYears    = 5
)

// PageRange is a range as people give it on the dashboard: whole UTC days
// with both ends included ("to 22 Nov" includes the 22nd), or all time.
// Query is the same range in the API's terms, its dateTo exclusive.
type PageRange struct {
	First, Last time.Time // the first and last day shown (UTC midnights)
	All         bool      // every day from the project's first view to today
	Query       Query
	Unit        Unit // the chart's buckets: at most MaxBars, months for All time
}

// Days is how many days the range shows.
func (r PageRange) Days() int { return DayCount(r.First, r.Last.AddDate(0, 0, 1)) }

// ParsePageRange reads the dashboard's range parameters: from and to
// (YYYY-MM-DD, both included) or range=all. A missing to is today, a
// missing from DefaultRangeDays days up to to. firstView gives the
// project's first page view, for All time. Problems are written for
// people, naming the field they are about (from or to).
func ParsePageRange(get func(string) string, now time.Time, firstView func() (time.Time, bool, error)) (PageRange, model.FieldErrors, error) {
	today := startOfDay(now)
	if get("range") == "all" {
		r := PageRange{All: true, First: today, Last: today, Unit: Month}
		first, ok, err := firstView()
		if err != nil {
			return r, nil, err
		}
		if ok && first.Before(today) {
			r.First = startOfDay(first)
		}
		r.Query = r.query()
		return r, nil, nil
	}
	var problems model.FieldErrors
	day := func(field, label string) *time.Time {
		v := get(field)
		if v == "" {
			return nil
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			problems.Add(field, "The %s date “%s” is not a date. Pick one from the calendar, or type it as %s.", label, v, today.Format(time.DateOnly))
			return nil
		}
		return &t
	}
	from, to := day("from", "start"), day("to", "end")
	if problems != nil {
		return PageRange{}, problems, nil
	}
	r := PageRange{Last: today}
	if to != nil {
		r.Last = *to
	}
	r.First = r.Last.AddDate(0, 0, 1-DefaultRangeDays)
	if from != nil {
		r.First = *from
	}
	switch {
	case r.Last.Before(r.First) && to == nil:
		return r, model.Invalid("from", fmt.Sprintf("The start date, %s, is after today (%s). Pick an earlier start date.", longDay(r.First), longDay(today))), nil
	case r.Last.Before(r.First):
		return r, model.Invalid("to", fmt.Sprintf("The end date, %s, is before the start date, %s. Swap them, or pick a preset.", longDay(r.Last), longDay(r.First))), nil
	case r.First.Before(r.Last.AddDate(-MaxRangeYears, 0, 0)):
		return r, model.Invalid("from", fmt.Sprintf("From %s to %s is more than %d years; a range picked by date spans at most %d. Pick a later start date, or choose All time.", longDay(r.First), longDay(r.Last), MaxRangeYears, MaxRangeYears)), nil
	}
	r.Query = r.query()
	r.Unit = UnitFor(*r.Query.From, *r.Query.To)
	return r, nil, nil
}

// query is the range with the API's exclusive end: the day after Last.
func (r PageRange) query() Query {
	from, to := r.First, r.Last.AddDate(0, 0, 1)
	return Query{From: &from, To: &to}
}

func longDay(t time.Time) string { return t.Format("2 Jan 2006") }

// DayCount is how many UTC days [from, to) touches, without listing them
// (a range can be centuries long before it is refused).
func DayCount(from, to time.Time) int {
	secs := to.Unix() - startOfDay(from).Unix() // seconds, not a Duration, which overflows at 292 years
	if to.Nanosecond() > 0 {
		secs++
	}
	return int((secs + 86399) / 86400)
}

func startOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Report is the dashboard's picture of a range: the visitors series (the
// export's page and totals, each bucket's visitors and, when asked, the
// previous period's totals) and the views export's totals.
type Report struct {
	Series
	Views      ViewCounts
	HasTraffic bool // the project has recorded a page view, in the range or not
}

// Report counts a bounded range for the dashboard: the visitors export in
// one pass over the range's views, the buckets of u and the view totals
// from per-day bitmaps and counts.
func (s *Service) Report(ctx context.Context, projectID string, q Query, u Unit, previous bool) (Report, error) {
	if q.From == nil || q.To == nil {
		return Report{}, fmt.Errorf("analytics: a report needs a bounded range")
	}
	var r Report
	var err error
	if r.Views, err = s.ViewTotals(ctx, projectID, q); err != nil {
		return r, err
	}
	r.HasTraffic = r.Views.All() > 0
	if !r.HasTraffic {
		if r.HasTraffic, err = s.HasTraffic(ctx, projectID); err != nil {
			return r, err
		}
	}
	if !r.HasTraffic {
		r.Visitors = Visitors{Visitors: []VisitorRow{}}
		return r, nil
	}
	r.Series, err = s.VisitorSeries(ctx, projectID, q, u, previous)
	return r, err
}
