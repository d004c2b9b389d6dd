package analytics

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// AgentRow is one agent's line of the agents export (CONTRACT §3): its
// views and exact distinct visitors in the range. Operator is null when
// unknown.
type AgentRow struct {
	Name     string  `json:"name"`
	Operator *string `json:"operator"`
	Class    string  `json:"class"`
	Views    int     `json:"views"`
	Visitors int     `json:"visitors"`
}

// Agents is the agents export.
type Agents struct {
	Agents  []AgentRow `json:"agents"`
	HasMore bool       `json:"hasMore"`
}

// Agents counts, per agent or crawler (every view of a class but human
// is in a row: "Markdown reader" for a Markdown read by an unnamed client,
// UnnamedAgent's row for any other view no list names), its views and
// distinct visitors in the range, narrowed to one page by path when it is
// not "". Rows are by visitors, then views, descending, then by name. It
// is counted from the index, or in SQL for a site with more agents than
// the index tells apart.
func (s *Service) Agents(ctx context.Context, projectID string, q Query, path string) (Agents, error) {
	out := Agents{Agents: []AgentRow{}}
	rows, counted, err := indexOrSQL(ctx, s, projectID, q, agentsLost,
		func(x *index, from, to int64) []AgentRow { return x.agentCounts(from, to, path) },
		func(site, from, to int64) ([]AgentRow, error) {
			counts, err := s.db.AnalyticsAgentCounts(ctx, site, from, to, path)
			if err != nil {
				return nil, err
			}
			var rows []AgentRow
			for _, c := range counts {
				rows = append(rows, agentRow(Agent(c.Agent), Class(c.Class), c.Views, c.Visitors))
			}
			return rows, nil
		})
	if err != nil || !counted {
		return out, err
	}
	out.Agents, out.HasMore = page(rows, q, compareAgentRows)
	return out, nil
}

// agentsLost says the index tells apart too few agents: SQL counts them.
func agentsLost(x *index) bool { return x.agents.lost > 0 }

// AgentPageRow is one page an agent read: its views and distinct visitors.
type AgentPageRow struct {
	Path     string `json:"path"`
	Views    int    `json:"views"`
	Visitors int    `json:"visitors"`
}

// AgentPages is the pages one agent read in a range, a page of them.
type AgentPages struct {
	Pages   []AgentPageRow `json:"pages"`
	HasMore bool           `json:"hasMore"`
}

// AgentPages counts, per page, the views in the range of the agent named
// name (an agents export row's name, of any operator) in class c, and its
// distinct visitors; ordered by visitors, then views, descending, then by
// path. The dashboard's pages table narrowed to one agent.
func (s *Service) AgentPages(ctx context.Context, projectID string, q Query, name string, c Class) (AgentPages, error) {
	out := AgentPages{Pages: []AgentPageRow{}}
	if c == Human || c >= numClasses {
		return out, nil
	}
	rows, _, err := indexOrSQL(ctx, s, projectID, q, agentsLost,
		func(x *index, from, to int64) []AgentPageRow { return x.agentPages(from, to, name, c) },
		func(site, from, to int64) ([]AgentPageRow, error) {
			if name == UnnamedAgent(c).Name {
				name = ""
			}
			counts, err := s.db.AnalyticsAgentPathCounts(ctx, site, from, to, name, uint8(c))
			if err != nil {
				return nil, err
			}
			var rows []AgentPageRow
			for _, n := range counts {
				rows = append(rows, AgentPageRow{Path: n.Path, Views: n.Views, Visitors: n.Visitors})
			}
			return rows, nil
		})
	if err != nil {
		return out, err
	}
	out.Pages, out.HasMore = page(rows, q, func(a, b AgentPageRow) int {
		return cmp.Or(b.Visitors-a.Visitors, b.Views-a.Views, strings.Compare(a.Path, b.Path))
	})
	return out, nil
}

// agentCounts (x.mu held for reading) counts each agent's views and
// distinct visitors in [from, to), by class, over every path or the one
// called path.
func (x *index) agentCounts(from, to int64, path string) []AgentRow {
	counts := originCounts(x, from, to, path, AI, numClasses, func(k originKey) []originKey { return []originKey{k} })
	rows := make([]AgentRow, 0, len(counts))
	for k, n := range counts {
		rows = append(rows, agentRow(x.agents.entries[k.id], k.class, n.views, n.visitors))
	}
	return rows
}

// agentPages (x.mu held for reading) counts, per path, the views in
// [from, to) of class c by the agents called name, and their distinct
// visitors.
func (x *index) agentPages(from, to int64, name string, c Class) []AgentPageRow {
	want := make([]bool, len(x.agents.entries))
	found := false
	for a, ag := range x.agents.entries {
		if a == 0 && name == UnnamedAgent(c).Name || a > 0 && ag.Name == name {
			want[a], found = true, true
		}
	}
	if !found {
		return []AgentPageRow{}
	}
	paths := x.pathsIn(from, to)
	n := len(x.paths)
	if paths != nil {
		n = len(paths)
	}
	rows := make([]AgentPageRow, n)
	onCores(n, func() bitset { return newBitset(x.spaceOf(c)) }, func(seen bitset, i int) {
		pi := i
		if paths != nil {
			pi = int(paths[i])
		}
		p := x.paths[pi]
		lo, hi := span(p.at[c], from, to)
		vis, agent := p.vis[c][lo:hi], p.origin[c][lo:hi]
		r := AgentPageRow{Path: p.name}
		for k, a := range agent {
			if want[a] {
				r.Views++
				if seen.set(vis[k]) {
					r.Visitors++
				}
			}
		}
		if r.Views == 0 {
			return
		}
		for k, a := range agent {
			if want[a] {
				seen.clear(vis[k])
			}
		}
		rows[i] = r
	})
	return slices.DeleteFunc(rows, func(r AgentPageRow) bool { return r.Views == 0 })
}

// pathPosition is the position in x.paths of the path called name, -1
// when there is none.
func (x *index) pathPosition(name string) int {
	return slices.IndexFunc(x.paths, func(p *pathViews) bool { return p.name == name })
}

// agentRow is an agent's row; a view no agent is named for is in its
// class's UnnamedAgent row.
func agentRow(a Agent, c Class, views, visitors int) AgentRow {
	if a == (Agent{}) {
		a = UnnamedAgent(c)
	}
	r := AgentRow{Name: a.Name, Class: c.String(), Views: views, Visitors: visitors}
	if a.Operator != "" {
		r.Operator = &a.Operator
	}
	return r
}

// UnnamedAgent is the agents export's row for the views of class c that
// no agent is named for: a bot no list names ("Unnamed bot": curl, a
// crawler known by a generic rule), or, for the other classes, views stored
// before Folio kept agents. The contract lists every class but human, so
// they are counted, never dropped; their operator is null.
func UnnamedAgent(c Class) Agent {
	switch c {
	case AI:
		return Agent{Name: "Unnamed AI agent"}
	case AISearch:
		return Agent{Name: "Unnamed AI search crawler"}
	case AITraining:
		return Agent{Name: "Unnamed AI training crawler"}
	}
	return Agent{Name: "Unnamed bot"}
}

// compareAgentRows is the export's order: visitors, then views,
// descending, then name, operator and class.
func compareAgentRows(a, b AgentRow) int {
	if a.Visitors != b.Visitors {
		return b.Visitors - a.Visitors
	}
	if a.Views != b.Views {
		return b.Views - a.Views
	}
	var ao, bo string
	if a.Operator != nil {
		ao = *a.Operator
	}
	if b.Operator != nil {
		bo = *b.Operator
	}
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(ao, bo), strings.Compare(a.Class, b.Class))
}
