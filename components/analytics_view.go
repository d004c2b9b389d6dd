package components

import (
	"fmt"
	"html"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// AnalyticsView is a project's analytics page: the range asked for, and
// what the exports count over it.
type AnalyticsView struct {
	ProjectID string
	BaseURL   string     // FOLIO_BASE_URL, for the tracker snippet
	Drains    []DrainURL // the project's drain URLs, for the doors of the collect panel
	Range     AnalyticsRange
	Errors    []string // what is wrong with the range, for people; nothing is counted then
	Invalid   string   // the range field (from or to) the errors are about
	NoTraffic bool     // the project has never recorded a page view

	Totals   VisitorCounts  // the visitors over the range
	Rows     []PathVisitors // the table's page, most visited first
	HasMore  bool           // the table has a next page
	Views    ViewCounts     // page views by class
	Buckets  []Bucket       // the chart's bars, by Range.Unit
	Previous *VisitorCounts // the previous period's totals, for ranges that have one
	Channels ChannelsView   // where people came from, loaded after the page
	Offset   int
	Limit    int

	Agents     []AgentRow // the AI agents panel: agents and crawlers, most visitors first
	AgentsMore int        // agents in the range beyond those shown
	// Agent, when set, narrows the pages table to the pages it read:
	// AgentRows instead of Rows.
	Agent     *AgentFilter
	AgentRows []AgentPage
}

// AgentRow is one agent or crawler of the AI agents panel.
type AgentRow struct {
	Name     string
	Operator string // "" when unknown
	Class    string // the class as the API names it: ai, aiSearch, aiTraining, bots
	Views    int
	Visitors int
	Active   bool // the pages table is narrowed to it
}

// AgentFilter is the agent (its name and class) the pages table shows.
type AgentFilter struct {
	Name, Class string
}

// AgentPage is one page the narrowed table shows: the agent's views of it
// and their distinct visitors.
type AgentPage struct {
	Path            string
	Views, Visitors int
}

// classLabel is how the page names a class of views (the views panel's
// words, one at a time).
func classLabel(class string) string {
	switch class {
	case "ai":
		return "AI agent"
	case "aiSearch":
		return "AI search"
	case "aiTraining":
		return "AI training"
	case "bots":
		return "Bot"
	}
	return class
}

// classSwatch is a class's colour in the views panel.
func classSwatch(class string) string {
	switch class {
	case "aiSearch":
		return "search"
	case "aiTraining":
		return "training"
	}
	return class
}

// agentURL is the page narrowed to agent a's pages, in the same range.
func (v AnalyticsView) agentURL(a AgentRow) string {
	q := url.Values{}
	for k, vs := range v.Range.Parameters {
		q[k] = vs
	}
	q.Set("agent", a.Name)
	q.Set("class", a.Class)
	return "/projects/" + v.ProjectID + "/analytics?" + q.Encode()
}

// allPagesURL is the page with the table of every page, in the same range.
func (v AnalyticsView) allPagesURL() string {
	q := url.Values{}
	for k, vs := range v.Range.Parameters {
		q[k] = vs
	}
	return "/projects/" + v.ProjectID + "/analytics?" + q.Encode()
}

// VisitorCounts are unique visitors: people, AI agents, and all of them,
// each counted once.
type VisitorCounts struct {
	Human, AI, Total int
}

// PathVisitors is one path's row of the pages table.
type PathVisitors struct {
	Path string
	VisitorCounts
}

// ViewCounts are page views by class; All counts every one of them,
// crawlers included.
type ViewCounts struct {
	Human, AI, AISearch, AITraining, Bots int
	All                                   int
}

// Bucket is one bar of the chart: the visitors of [From, To), a span of
// the unit that starts at Start (From and To are clipped to the range).
type Bucket struct {
	Start, From, To time.Time
	VisitorCounts
}

// Unit is what one bar of the chart spans.
type Unit string

// The chart's units.
const (
	UnitDay   Unit = "day"
	UnitWeek  Unit = "week"
	UnitMonth Unit = "month"
)

func (u Unit) String() string { return string(u) }

// AnalyticsRange is the range picker's state.
type AnalyticsRange struct {
	From, To   string // the inputs' values: the first and last day included
	First      time.Time
	Last       time.Time // the last day included
	Days       int
	All        bool
	Unit       Unit
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
	if v.Agent != nil {
		q.Set("agent", v.Agent.Name)
		q.Set("class", v.Agent.Class)
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
	r := v.Range
	by := "by " + r.Unit.String()
	if r.All {
		return "All time: " + day(r.First) + " – " + day(r.Last) + " · UTC, " + by
	}
	if r.Days == 1 {
		return day(r.First) + " · 1 day, UTC"
	}
	return day(r.First) + " – " + day(r.Last) + " · " + strconv.Itoa(r.Days) + " days, UTC, " + by
}

// overlap is how many visitors are both human and AI in the range: why the
// groups add up to more than the total.
func (v AnalyticsView) overlap() int {
	t := v.Totals
	return t.Human + t.AI - t.Total
}

// overlapNote says plainly why Human and AI add up to more than the total.
func (v AnalyticsView) overlapNote() string {
	s := "One visitor can be both: a person who also sends an AI agent to read the docs counts once in each group but once in the total, so the groups add up to more than the unique visitors"
	switch n := v.overlap(); {
	case n == 1:
		s += " (here 1 visitor is both)"
	case n > 1:
		s += " (here " + num(n) + " visitors are both)"
	}
	return s + "."
}

// prevOf is the previous period's total of one group, nil without one.
func prevOf(v AnalyticsView, group string) *int {
	if v.Previous == nil {
		return nil
	}
	n := v.Previous.Total
	switch group {
	case "human":
		n = v.Previous.Human
	case "ai":
		n = v.Previous.AI
	}
	return &n
}

// change is a total against the previous period's, for its card.
type change struct {
	Text  string // "▲ 12% vs previous 30 days"
	Class string // up, down or flat
	Label string // the same for screen readers
}

func (v AnalyticsView) change(now, before int) change {
	period := "the previous " + strconv.Itoa(v.Range.Days) + " days"
	if v.Range.Days == 1 {
		period = "the day before"
	}
	switch {
	case before == 0 && now == 0:
		return change{Text: "none in " + period, Class: "flat", Label: "none in " + period}
	case before == 0:
		return change{Text: "none in " + period, Class: "up", Label: "up from none in " + period}
	}
	p := (float64(now) - float64(before)) * 100 / float64(before)
	pct := fmt.Sprintf("%.0f%%", math.Abs(p))
	if math.Abs(p) < 0.5 {
		return change{Text: "= " + period, Class: "flat", Label: "the same as " + period + " (" + num(before) + ")"}
	}
	if p > 0 {
		return change{Text: "▲ " + pct + " vs " + period, Class: "up", Label: "up " + pct + " from " + num(before) + " in " + period}
	}
	return change{Text: "▼ " + pct + " vs " + period, Class: "down", Label: "down " + pct + " from " + num(before) + " in " + period}
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

// The chart is SVG drawn here: bars are placed in percentages of the
// chart's width so it fills any screen while its text keeps its size. Each
// bar's numbers are in its attributes; static/analytics.js shows them on
// hover, tap and keyboard focus (the page's CSP allows no inline script),
// and the SVG title shows them without it.
const (
	chartHeight = 240
	plotTop     = 14
	plotBottom  = 206
	labelY      = 228
	maxXLabels  = 7
	yAxisWidth  = 48
)

type chart struct {
	Bars   []chartBar
	Grid   []chartLine
	Labels []chartLabel
	Desc   string
}

type chartBar struct {
	Start, Label               string // the bucket's first day (YYYY-MM-DD), and what it is for people
	Human, AI, Total           int
	Tip                        string
	TabIndex                   string // one bar is in the tab order; arrows move between them
	X, W                       string // the bar's column
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

// bucketLabel names a bucket for people: its day, its week (clipped to the
// range where the range cuts it) or its month.
func bucketLabel(b Bucket, u Unit) string {
	last := b.To.Add(-time.Nanosecond)
	switch u {
	case UnitWeek:
		return spanLabel(b.From, last)
	case UnitMonth:
		if b.From.Equal(b.Start) && b.To.Equal(b.Start.AddDate(0, 1, 0)) {
			return b.Start.Format("January 2006")
		}
		return spanLabel(b.From, last)
	}
	return b.Start.Format("Mon 2 Jan 2006")
}

// spanLabel is the days from first to last, both included: "3–9 Mar 2026".
func spanLabel(first, last time.Time) string {
	switch {
	case first.Year() != last.Year():
		return first.Format("2 Jan 2006") + " – " + last.Format("2 Jan 2006")
	case first.Month() != last.Month():
		return first.Format("2 Jan") + " – " + last.Format("2 Jan 2006")
	case first.Day() != last.Day():
		return first.Format("2") + "–" + last.Format("2 Jan 2006")
	}
	return first.Format("2 Jan 2006")
}

// axisLabel is a bucket's short label under the chart.
func axisLabel(b Bucket, u Unit, years bool) string {
	if u == UnitMonth {
		if years {
			return b.Start.Format("Jan 2006")
		}
		return b.Start.Format("Jan")
	}
	return b.From.Format("2 Jan")
}

func newChart(buckets []Bucket, u Unit) chart {
	c := chart{}
	n := len(buckets)
	if n == 0 {
		return c
	}
	peak, peakAt := 0, buckets[0]
	for _, b := range buckets {
		if m := max(b.Human, b.AI); m > peak {
			peak, peakAt = m, b
		}
	}
	step := niceStep(peak)
	top := 4 * step
	scale := func(v int) int {
		h := v * (plotBottom - plotTop) / top
		if v > 0 && h < 2 {
			h = 2 // a bucket with anyone at all shows
		}
		return h
	}
	pct := func(x float64) string { return strconv.FormatFloat(x*100/float64(n), 'f', 4, 64) + "%" }
	for i, b := range buckets {
		hh, ah := scale(b.Human), scale(b.AI)
		label := bucketLabel(b, u)
		bar := chartBar{
			Start: b.From.Format(time.DateOnly), Label: label,
			Human: b.Human, AI: b.AI, Total: b.Total,
			Tip:      fmt.Sprintf("%s: %s unique visitors, %s human, %s AI", label, num(b.Total), num(b.Human), num(b.AI)),
			TabIndex: "-1",
			X:        pct(float64(i)), W: pct(1),
			HumanX: pct(float64(i) + 0.12), AIX: pct(float64(i) + 0.5), BarW: pct(0.38),
			HumanY: plotBottom - hh, HumanH: hh, AIY: plotBottom - ah, AIH: ah,
			ColumnY: plotTop, ColumnH: plotBottom - plotTop, Baseline: plotBottom,
		}
		if i == n-1 {
			bar.TabIndex = "0" // the latest is where a reader starts
		}
		c.Bars = append(c.Bars, bar)
	}
	for k := 0; k <= 4; k++ {
		c.Grid = append(c.Grid, chartLine{Y: plotBottom - k*step*(plotBottom-plotTop)/top, Label: num(k * step)})
	}
	years := buckets[0].Start.Year() != buckets[n-1].Start.Year()
	labels := min(n, maxXLabels)
	for k := range labels {
		i := 0
		if labels > 1 {
			i = k * (n - 1) / (labels - 1)
		}
		l := chartLabel{X: pct(float64(i) + 0.5), Anchor: "middle", Text: axisLabel(buckets[i], u, years), Alt: k%2 == 1 && k != labels-1}
		switch {
		case labels > 1 && k == 0:
			l.X, l.Anchor = "0%", "start"
		case labels > 1 && k == labels-1:
			l.X, l.Anchor = "100%", "end"
		}
		c.Labels = append(c.Labels, l)
	}
	c.Desc = fmt.Sprintf("Unique visitors per %s from %s to %s, human and AI side by side.", u, day(buckets[0].From), day(buckets[n-1].To.Add(-time.Nanosecond)))
	if peak > 0 {
		c.Desc += fmt.Sprintf(" The busiest, %s, had %s visitors of one class.", bucketLabel(peakAt, u), num(peak))
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

func viewShares(v ViewCounts) []viewShare {
	out := []viewShare{
		{Class: "human", Label: "Human", Count: v.Human},
		{Class: "ai", Label: "AI agents", Count: v.AI},
		{Class: "search", Label: "AI search", Count: v.AISearch},
		{Class: "training", Label: "AI training", Count: v.AITraining},
		{Class: "bots", Label: "Bots", Count: v.Bots},
	}
	at := 0.0
	all := v.All // the bar splits every view, crawlers included
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

// followLine is the command that counts a server's access log as it grows.
func (v AnalyticsView) followLine(format, file string) string {
	if format != "" {
		format = " --format " + format
	}
	return "folio analytics import --project " + v.ProjectID + format + " --follow " + file
}

// workerLine deploys the Cloudflare Worker (scripts/folio-worker.js) in
// front of the docs, for this project.
func (v AnalyticsView) workerLine() string {
	return "npx wrangler secret put FOLIO_KEY   # an ingest key\n" +
		"npx wrangler deploy scripts/folio-worker.js --name folio-docs --compatibility-date 2024-09-23 \\\n" +
		"  --route 'docs.example.com/*' --var FOLIO_URL:" + v.BaseURL + " --var FOLIO_PROJECT:" + v.ProjectID
}
