package components

import (
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/folio-docs/folio/analytics"
)

// AnalyticsView is a project's analytics page: the range asked for, and
// what the exports count over it.
type AnalyticsView struct {
	ProjectID string
	BaseURL   string // FOLIO_BASE_URL, for the tracker snippet
	Range     AnalyticsRange
	Errors    []string // the contract's messages for bad parameters; nothing is counted then
	NoTraffic bool     // the project has never recorded a page view

	Visitors analytics.Visitors   // totals, and the table's page
	Views    analytics.ViewCounts // page views by class
	Days     []analytics.DayVisitors
	Offset   int
	Limit    int
}

// AnalyticsRange is the range picker's state.
type AnalyticsRange struct {
	From, To   string // the inputs' values, as given
	First      time.Time
	Last       time.Time // the last day included (dateTo is exclusive)
	Days       int
	Presets    []RangePreset
	Parameters url.Values // the range's query parameters, for links that keep it
}

// RangePreset is a one-click range such as the last 7 days.
type RangePreset struct {
	Label  string
	Query  string
	Active bool
}

func (v AnalyticsView) pageURL(offset int) string {
	q := url.Values{}
	for k, vs := range v.Range.Parameters {
		q[k] = vs
	}
	q.Set("offset", strconv.Itoa(offset))
	q.Set("limit", strconv.Itoa(v.Limit))
	return "/projects/" + v.ProjectID + "/analytics?" + q.Encode()
}

func (v AnalyticsView) snippet() string {
	return `<script defer src="` + v.BaseURL + `/js/folio.js" data-project="` + v.ProjectID + `"></script>`
}

func (v AnalyticsView) eventsExample() string {
	return "curl " + v.BaseURL + "/v1/analytics/" + v.ProjectID + "/events \\\n" +
		"  -H \"Authorization: Bearer $FOLIO_KEY\" -H \"Content-Type: application/json\" \\\n" +
		`  -d '{"events":[{"path":"/docs/install","timestamp":"2026-03-05T12:00:00Z",` + "\n" +
		`        "userAgent":"Mozilla/5.0 (compatible; ChatGPT-User/1.0)","ip":"203.0.113.7"}]}'`
}

func (v AnalyticsView) rangeLabel() string {
	if v.Range.Days == 1 {
		return day(v.Range.First) + " · 1 day, UTC"
	}
	return day(v.Range.First) + " – " + day(v.Range.Last) + " · " + strconv.Itoa(v.Range.Days) + " days, UTC"
}

// wrappablePath is a path as HTML that may wrap before each slash but
// copies as itself.
func wrappablePath(path string) string {
	parts := strings.SplitAfter(path, "/")
	for i, p := range parts {
		parts[i] = html.EscapeString(p)
	}
	return strings.Join(parts, "<wbr>")
}

// num writes a count with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + num(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// share is part of whole as a whole percentage, for a caption.
func share(part, whole int) string {
	if whole == 0 {
		return "0%"
	}
	p := float64(part) * 100 / float64(whole)
	if p > 0 && p < 1 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// The daily chart is SVG drawn here, not in the browser: bars are placed in
// percentages of the chart's width so it fills any screen while its text
// keeps its size, and the page needs no script (its CSP allows none inline).
const (
	chartHeight = 240
	plotTop     = 14
	plotBottom  = 206
	labelY      = 228
	maxXLabels  = 7
)

type chart struct {
	Days   []chartDay
	Grid   []chartLine
	Labels []chartLabel
	Desc   string
}

type chartDay struct {
	Date, Tip                  string
	Human, AI                  int
	X, W                       string // the day's column
	HumanX, AIX, BarW          string
	HumanY, HumanH, AIY, AIH   int
	ColumnY, ColumnH, Baseline int
}

type chartLine struct {
	Y     int
	Label string
}

type chartLabel struct {
	X, Anchor, Text string
	Alt             bool // hidden on narrow screens
}

func newChart(days []analytics.DayVisitors) chart {
	c := chart{}
	n := len(days)
	if n == 0 {
		return c
	}
	peak, peakDay := 0, days[0].Day
	for _, d := range days {
		if m := max(d.Human, d.AI); m > peak {
			peak, peakDay = m, d.Day
		}
	}
	step := niceStep(peak)
	top := 4 * step
	scale := func(v int) int {
		h := v * (plotBottom - plotTop) / top
		if v > 0 && h < 2 {
			h = 2 // a day with anyone at all shows
		}
		return h
	}
	pct := func(x float64) string { return strconv.FormatFloat(x*100/float64(n), 'f', 4, 64) + "%" }
	for i, d := range days {
		hh, ah := scale(d.Human), scale(d.AI)
		c.Days = append(c.Days, chartDay{
			Date:  d.Day.Format(time.DateOnly),
			Tip:   fmt.Sprintf("%s: %s human, %s AI visitors", d.Day.Format("Mon 2 Jan 2006"), num(d.Human), num(d.AI)),
			Human: d.Human, AI: d.AI,
			X: pct(float64(i)), W: pct(1),
			HumanX: pct(float64(i) + 0.12), AIX: pct(float64(i) + 0.5), BarW: pct(0.38),
			HumanY: plotBottom - hh, HumanH: hh, AIY: plotBottom - ah, AIH: ah,
			ColumnY: plotTop, ColumnH: plotBottom - plotTop, Baseline: plotBottom,
		})
	}
	for k := 1; k <= 4; k++ {
		c.Grid = append(c.Grid, chartLine{Y: plotBottom - k*step*(plotBottom-plotTop)/top, Label: num(k * step)})
	}
	labels := min(n, maxXLabels)
	for k := range labels {
		i := 0
		if labels > 1 {
			i = k * (n - 1) / (labels - 1)
		}
		l := chartLabel{X: pct(float64(i) + 0.5), Anchor: "middle", Text: days[i].Day.Format("2 Jan"), Alt: k%2 == 1 && k != labels-1}
		switch {
		case labels > 1 && k == 0:
			l.X, l.Anchor = "0%", "start"
		case labels > 1 && k == labels-1:
			l.X, l.Anchor = "100%", "end"
		}
		c.Labels = append(c.Labels, l)
	}
	c.Desc = fmt.Sprintf("Unique visitors per UTC day from %s to %s, human and AI side by side.", day(days[0].Day), day(days[n-1].Day))
	if peak > 0 {
		c.Desc += fmt.Sprintf(" The busiest day, %s, had %s visitors of one class.", day(peakDay), num(peak))
	}
	return c
}

// niceStep is a gridline step of 1, 2 or 5 times a power of ten such that
// four steps reach peak.
func niceStep(peak int) int {
	for unit := 1; ; unit *= 10 {
		for _, m := range []int{1, 2, 5} {
			if 4*m*unit >= peak {
				return m * unit
			}
		}
	}
}

// viewShare is one class's part of the page views, for the split bar.
type viewShare struct {
	Class, Label string
	Count        int
	X, W         string
}

func viewShares(v analytics.ViewCounts) []viewShare {
	out := []viewShare{
		{Class: "human", Label: "Human", Count: v.Human},
		{Class: "ai", Label: "AI agents", Count: v.AI},
		{Class: "search", Label: "AI search", Count: v.AISearch},
		{Class: "training", Label: "AI training", Count: v.AITraining},
		{Class: "bots", Label: "Bots", Count: v.Bots},
	}
	at := 0.0
	all := v.All() // the bar splits every view, crawlers included
	for i := range out {
		w := 0.0
		if all > 0 {
			w = float64(out[i].Count) * 100 / float64(all)
		}
		out[i].X, out[i].W = strconv.FormatFloat(at, 'f', 3, 64)+"%", strconv.FormatFloat(w, 'f', 3, 64)+"%"
		at += w
	}
	return out
}

// NewAnalyticsRange is the picker's state for a range: given holds the
// parameters as asked (shown back as typed when they were wrong), q the
// range as completed by analytics.DayRange when valid (nil bounds when not).
func NewAnalyticsRange(given func(string) string, q analytics.Query, now time.Time) AnalyticsRange {
	r := AnalyticsRange{From: given("dateFrom"), To: given("dateTo"), Parameters: url.Values{}}
	valid := q.From != nil && q.To != nil
	if valid {
		r.From, r.To = inputDate(*q.From), inputDate(*q.To)
		r.Parameters.Set("dateFrom", bound(*q.From))
		r.Parameters.Set("dateTo", bound(*q.To))
		r.First, r.Last = *q.From, q.To.Add(-time.Nanosecond)
		r.Days = analytics.DayCount(*q.From, *q.To)
	}
	y, m, d := now.UTC().Date()
	end := time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
	for _, p := range []struct {
		label string
		from  time.Time
	}{
		{"7 days", end.AddDate(0, 0, -7)}, {"30 days", end.AddDate(0, 0, -30)},
		{"90 days", end.AddDate(0, 0, -90)}, {"12 months", end.AddDate(-1, 0, 0)},
	} {
		query := url.Values{"dateFrom": {p.from.Format(time.DateOnly)}, "dateTo": {end.Format(time.DateOnly)}}.Encode()
		r.Presets = append(r.Presets, RangePreset{Label: p.label, Query: query, Active: valid && q.From.Equal(p.from) && q.To.Equal(end)})
	}
	return r
}

// inputDate is a bound as a date input shows it.
func inputDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// bound is a bound as a link carries it: the day alone when it is one.
func bound(t time.Time) string {
	if t.Equal(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)) {
		return t.Format(time.DateOnly)
	}
	return t.UTC().Format(time.RFC3339Nano)
}
