package analytics

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// The agents export, and each agent's pages, agree with a brute-force
// count over generated traffic (several AI agents, crawlers, bots named
// and not, Markdown reads): each view of a class but human is in a row,
// each stored view's agent is what the classifier names for the event that
// made it, and the views and distinct visitors per agent (and per agent
// and page) are counted from those, on day, week and month ranges,
// instants inside a day and one page. The index is loaded half-way and
// then reads the rest, each view going anywhere in the two months, so
// agents are merged into sealed paths and sorted with their times; a
// second service whose index tells only 3 agents apart counts in SQL.
func TestAgentsExportEqualsBruteForce(t *testing.T) {
	s, d, project := newTestService(t)
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGenerator(GenConfig{Views: 12000, Paths: 60, Visitors: 1500, From: start, To: start.AddDate(0, 2, 0), Seed: 7})
	events := generated(g)
	few := NewService(d, s.cls)
	few.maxAgents = 3
	recordInBatches(t, s, project, events, func(svc *Service) error {
		_, err := svc.Agents(ctx, project, Query{Limit: 1}, "")
		return err
	}, s, few)
	views := storedInOrder(t, d, project, len(events))
	named := map[string]bool{}
	for i, e := range events {
		class, agent := s.cls.ClassifyAgent(Input{UserAgent: e.UserAgent, Path: e.Path, Accept: e.Accept})
		if uint8(class) != views[i].Class || views[i].At != e.At.UnixMilli() {
			t.Fatalf("view %d is not event %d's", views[i].ID, i)
		}
		if class != Human && agent == (Agent{}) {
			agent = UnnamedAgent(class)
		}
		views[i].agent = agent
		named[agent.Name] = true
	}
	for _, want := range []string{"ChatGPT-User", "Claude-User", "GPTBot", "Markdown reader", "Unnamed bot"} {
		if !named[want] {
			t.Fatalf("no view by %s in generated traffic (agents %v); the test would prove little", want, named)
		}
	}
	type key struct {
		a Agent
		c uint8
	}
	// in is the views of [from, to), of path when it is not "".
	in := func(from, to int64, path string) []storedView {
		var out []storedView
		for _, v := range views {
			if v.Class != uint8(Human) && v.At >= from && v.At < to && (path == "" || v.path == path) {
				out = append(out, v)
			}
		}
		return out
	}
	brute := func(views []storedView) []AgentRow {
		n := map[key]int{}
		visitors := map[key]map[int64]bool{}
		for _, v := range views {
			k := key{v.agent, v.Class}
			n[k]++
			if visitors[k] == nil {
				visitors[k] = map[int64]bool{}
			}
			visitors[k][v.VisitorID] = true
		}
		rows := []AgentRow{}
		for k, views := range n {
			rows = append(rows, agentRow(k.a, Class(k.c), views, len(visitors[k])))
		}
		slices.SortFunc(rows, compareAgentRows)
		return rows
	}
	brutePages := func(views []storedView, name string, c Class) []AgentPageRow {
		n := map[string]int{}
		visitors := map[string]map[int64]bool{}
		for _, v := range views {
			if v.agent.Name != name || v.Class != uint8(c) {
				continue
			}
			n[v.path]++
			if visitors[v.path] == nil {
				visitors[v.path] = map[int64]bool{}
			}
			visitors[v.path][v.VisitorID] = true
		}
		rows := []AgentPageRow{}
		for p, views := range n {
			rows = append(rows, AgentPageRow{Path: p, Views: views, Visitors: len(visitors[p])})
		}
		slices.SortFunc(rows, func(a, b AgentPageRow) int {
			return cmp.Or(b.Visitors-a.Visitors, b.Views-a.Views, strings.Compare(a.Path, b.Path))
		})
		return rows
	}
	top := views[0].path
	at := func(days int, d time.Duration) *time.Time { return ptr(start.AddDate(0, 0, days).Add(d)) }
	ranges := []struct {
		name     string
		from, to *time.Time
		path     string
	}{
		{"unbounded", nil, nil, ""},
		{"one day", at(10, 0), at(11, 0), ""},
		{"one week", at(14, 0), at(21, 0), ""},
		{"one month", at(5, 0), ptr(start.AddDate(0, 1, 5)), ""},
		{"a calendar month", ptr(start.AddDate(0, 1, 0)), ptr(start.AddDate(0, 2, 0)), ""},
		{"a calendar month but its last day", at(0, 0), at(30, 0), ""},
		{"a month and days, from an instant", at(2, 7*time.Hour+5*time.Millisecond), ptr(start.AddDate(0, 2, 0)), ""},
		{"instants inside a day", at(20, 3*time.Hour+17*time.Minute+250*time.Millisecond), at(20, 15*time.Hour+999*time.Millisecond), ""},
		{"one page, one month", at(0, 0), ptr(start.AddDate(0, 1, 0)), top},
		{"one page, one day", at(3, 0), at(4, 0), top},
		{"unknown page", nil, nil, "/no/such/page"},
		{"empty", ptr(start.AddDate(1, 0, 0)), nil, ""},
	}
	for _, svc := range []struct {
		name string
		s    *Service
	}{{"index", s}, {"SQL", few}} {
		for _, r := range ranges {
			q := Query{From: r.from, To: r.to}
			from, to := q.bounds()
			want := brute(in(from, to, r.path))
			if r.name == "unbounded" && len(want) < 5 {
				t.Fatalf("only %d agents in generated traffic", len(want))
			}
			for _, limit := range []int{1, 3, MaxLimit} {
				got := everyPage(t, svc.name+", "+r.name, q, limit, len(want), func(q Query) ([]AgentRow, bool, error) {
					a, err := svc.s.Agents(ctx, project, q, r.path)
					return a.Agents, a.HasMore, err
				})
				if !slices.EqualFunc(got, want, func(a, b AgentRow) bool { return compareAgentRows(a, b) == 0 && a.Views == b.Views }) {
					t.Fatalf("%s, %s limit %d: %+v, brute force %+v", svc.name, r.name, limit, got, want)
				}
			}
			if r.path != "" {
				continue
			}
			for _, a := range want {
				c, _ := ParseClass(a.Class)
				want := brutePages(in(from, to, ""), a.Name, c)
				q := Query{From: r.from, To: r.to, Limit: 7}
				var got []AgentPageRow
				for {
					p, err := svc.s.AgentPages(ctx, project, q, a.Name, c)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, p.Pages...)
					if !p.HasMore {
						break
					}
					q.Offset += q.Limit
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %s: pages of %s (%s): %+v, brute force %+v", svc.name, r.name, a.Name, a.Class, got, want)
				}
			}
		}
	}
	for _, c := range []struct {
		name  string
		class Class
	}{{"ChatGPT-User", Bot}, {"ChatGPT-User", Human}, {"Nobody", AI}} {
		if p, err := s.AgentPages(ctx, project, Query{Limit: 10}, c.name, c.class); err != nil || len(p.Pages) != 0 {
			t.Errorf("pages of %s as %s: %+v, %v; want none", c.name, c.class, p, err)
		}
	}
	if st, _ := few.site(ctx, project, false); st.idx.agents.lost == 0 {
		t.Fatalf("the index of 3 agents lost none of %d", len(named))
	}
}

// everyPage reads an export a page of limit rows at a time from offset 0,
// as a client pages it, and fails when a page's hasMore does not say
// whether rows remain of the want rows in all.
func everyPage[R any](t *testing.T, what string, q Query, limit, want int, fetch func(Query) ([]R, bool, error)) []R {
	t.Helper()
	q.Limit, q.Offset = limit, 0
	got := []R{}
	for {
		rows, more, err := fetch(q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rows...)
		if wantMore := q.Offset+limit < want; more != wantMore {
			t.Fatalf("%s: limit %d offset %d: hasMore %v, want %v", what, limit, q.Offset, more, wantMore)
		}
		if !more {
			return got
		}
		q.Offset += limit
	}
}
