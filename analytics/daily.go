package analytics

import (
	"context"
	"fmt"
	"time"
)

// The dashboard's range (CONTRACT §6): a default when none is asked for,
// and a bound on how many days one chart draws.
const (
	DefaultRangeDays = 30
	MaxRangeDays     = 366
)

// DayVisitors are the distinct visitors of one UTC day of a range.
type DayVisitors struct {
	// Day is the day's start (UTC midnight); From and To are the part of
	// the day inside the range, so they differ from the day's bounds only
	// at a range edge given as a date-time.
	Day, From, To time.Time
	VisitorCounts
}

// DayRange completes q's range for a day-by-day view: a missing dateTo is
// the end of today (UTC), a missing dateFrom is DefaultRangeDays before
// dateTo. A range longer than MaxRangeDays is refused, naming dateFrom.
func DayRange(q Query, now time.Time) (Query, []Problem) {
	if q.To == nil {
		to := startOfDay(now).AddDate(0, 0, 1)
		q.To = &to
	}
	if q.From == nil {
		from := q.To.AddDate(0, 0, -DefaultRangeDays)
		q.From = &from
	}
	if !q.From.Before(*q.To) {
		return q, []Problem{{"dateTo", "dateTo must be after dateFrom (dateTo is exclusive)."}}
	}
	if n := DayCount(*q.From, *q.To); n > MaxRangeDays {
		return q, []Problem{{"dateFrom", fmt.Sprintf("The range spans %d days; the dashboard shows at most %d. Pick a later dateFrom or an earlier dateTo.", n, MaxRangeDays)}}
	}
	return q, nil
}

// DailyVisitors counts each UTC day of [from, to) as the visitors export
// counts that day alone, so a day's numbers always match the export's.
func (s *Service) DailyVisitors(ctx context.Context, projectID string, from, to time.Time) ([]DayVisitors, error) {
	out := days(from, to)
	for i := range out {
		d := &out[i]
		v, err := s.Visitors(ctx, projectID, Query{From: &d.From, To: &d.To, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("analytics: unable to count the visitors of %s: %w", d.Day.Format(time.DateOnly), err)
		}
		d.VisitorCounts = v.Totals
	}
	return out, nil
}

// days splits [from, to) at UTC midnights.
func days(from, to time.Time) []DayVisitors {
	var out []DayVisitors
	for day := startOfDay(from); day.Before(to); day = day.AddDate(0, 0, 1) {
		d := DayVisitors{Day: day, From: day, To: day.AddDate(0, 0, 1)}
		if d.From.Before(from) {
			d.From = from
		}
		if d.To.After(to) {
			d.To = to
		}
		out = append(out, d)
	}
	return out
}

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

// Report is the dashboard's picture of a range: the visitors export's page
// and totals, the views export's totals, and each day's visitors.
type Report struct {
	Visitors   Visitors
	Views      ViewCounts
	Days       []DayVisitors
	HasTraffic bool // the project has recorded a page view, in the range or not
}

// Report counts a bounded range (see DayRange) for the dashboard.
func (s *Service) Report(ctx context.Context, projectID string, q Query) (Report, error) {
	if q.From == nil || q.To == nil {
		return Report{}, fmt.Errorf("analytics: a report needs a bounded range")
	}
	var r Report
	var err error
	if r.Visitors, err = s.Visitors(ctx, projectID, q); err != nil {
		return r, err
	}
	views, err := s.Views(ctx, projectID, Query{From: q.From, To: q.To, Limit: 1})
	if err != nil {
		return r, err
	}
	r.Views = views.Totals
	r.HasTraffic = r.Views.All() > 0
	if !r.HasTraffic {
		ever, err := s.Views(ctx, projectID, Query{Limit: 1})
		if err != nil {
			return r, err
		}
		r.HasTraffic = ever.Totals.All() > 0
	}
	if r.HasTraffic {
		r.Days, err = s.DailyVisitors(ctx, projectID, *q.From, *q.To)
	}
	return r, err
}
