package analytics

import (
	"cmp"
	"context"
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
// is counted in SQL over the stored views: the index does not carry
// agents yet.
func (s *Service) Agents(ctx context.Context, projectID string, q Query, path string) (Agents, error) {
	out := Agents{Agents: []AgentRow{}}
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return out, err
	}
	from, to := q.bounds()
	counts, err := s.db.AnalyticsAgentCounts(ctx, st.id, from, to, path)
	if err != nil {
		return out, err
	}
	rows := make([]AgentRow, 0, len(counts))
	for _, c := range counts {
		rows = append(rows, agentRow(Agent(c.Agent), Class(c.Class), c.Views, c.Visitors))
	}
	out.Agents, out.HasMore = page(rows, q, compareAgentRows)
	return out, nil
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
