package analytics

import (
	"cmp"
	"context"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
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
	var rows []AgentRow
	site := int64(0) // set when SQL must count
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) {
		if x.agentsLost > 0 {
			site = x.site
			return
		}
		rows = x.agentCounts(from, to, path)
	})
	if err != nil || site == 0 && rows == nil {
		return out, err
	}
	if site != 0 {
		from, to := q.bounds()
		counts, err := s.db.AnalyticsAgentCounts(ctx, site, from, to, path)
		if err != nil {
			return out, err
		}
		for _, c := range counts {
			rows = append(rows, agentRow(Agent(c.Agent), Class(c.Class), c.Views, c.Visitors))
		}
	}
	out.Agents, out.HasMore = page(rows, q, compareAgentRows)
	return out, nil
}

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
	var rows []AgentPageRow
	site := int64(0)
	err := s.readIndex(ctx, projectID, q, func(x *index, from, to int64) {
		if x.agentsLost > 0 {
			site = x.site
			return
		}
		rows = x.agentPages(from, to, name, c)
	})
	if err != nil {
		return out, err
	}
	if site != 0 {
		if name == UnnamedAgent(c).Name {
			name = ""
		}
		from, to := q.bounds()
		counts, err := s.db.AnalyticsAgentPathCounts(ctx, site, from, to, name, uint8(c))
		if err != nil {
			return out, err
		}
		for _, n := range counts {
			rows = append(rows, AgentPageRow{Path: n.Path, Views: n.Views, Visitors: n.Visitors})
		}
	}
	out.Pages, out.HasMore = page(rows, q, func(a, b AgentPageRow) int {
		return cmp.Or(b.Visitors-a.Visitors, b.Views-a.Views, strings.Compare(a.Path, b.Path))
	})
	return out, nil
}

// agentCounts (x.mu held for reading) counts each agent's views and
// distinct visitors in [from, to), by class, over every path or the one
// called path. The whole days of a range come from the agents' days and
// months (agents_days.go), the part-days at either end, one path's views
// and a range within a day from a pass over the views.
func (x *index) agentCounts(from, to int64, path string) []AgentRow {
	if path != "" {
		pi := x.pathPosition(path)
		if pi < 0 {
			return []AgentRow{}
		}
		return x.agentRows(x.agentTallies(from, to, []uint32{uint32(pi)})) // #nosec G115 -- a position in paths, not negative (checked above) and below MaxInt32
	}
	from, to = max(from, x.firstDay*msPerDay), min(to, x.endDay*msPerDay)
	if from >= to {
		return []AgentRow{}
	}
	first, end := ceilDiv(from, msPerDay), floorDiv(to, msPerDay) // whole days [first, end)
	if x.agentAgg == nil || first >= end {
		return x.agentRows(x.agentTallies(from, to, x.pathsIn(from, to)))
	}
	views, visitors := map[agentKey]int{}, map[agentKey][]*roaring.Bitmap{}
	x.agentsOfDays(first, end, views, visitors)
	for _, r := range [][2]int64{{from, first * msPerDay}, {end * msPerDay, to}} {
		if r[0] >= r[1] {
			continue
		}
		t := x.agentTallies(r[0], r[1], x.pathsIn(r[0], r[1]))
		for c := AI; c < numClasses; c++ {
			for a := range t[c] {
				if n := t[c][a].views; n > 0 {
					k := agentKey{c, uint16(a)}
					views[k] += n
					visitors[k] = append(visitors[k], t[c][a].bitmap())
				}
			}
		}
	}
	rows := make([]AgentRow, 0, len(views))
	for k, n := range views {
		bs := visitors[k]
		u := bs[0]
		if len(bs) > 1 {
			u = roaring.FastOr(bs...)
		}
		rows = append(rows, agentRow(x.agents[k.agent], k.class, n, int(u.GetCardinality()))) // #nosec G115 -- a count of 32-bit dense ids: at most 2^32
	}
	return rows
}

// agentTallies (x.mu held for reading) counts each agent's views in
// [from, to), by class and local id, and their visitors, over the paths
// at the positions given (nil: every path), shared among the cores.
func (x *index) agentTallies(from, to int64, paths []uint32) *[numClasses][]agentTally {
	n := len(x.paths)
	if paths != nil {
		n = len(paths)
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	tallies := make([]*[numClasses][]agentTally, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var t [numClasses][]agentTally
			for c := AI; c < numClasses; c++ {
				t[c] = make([]agentTally, len(x.agents))
			}
			for i := w; i < n; i += workers {
				pi := i
				if paths != nil {
					pi = int(paths[i])
				}
				p := x.paths[pi]
				for c := AI; c < numClasses; c++ {
					lo, hi := span(p.at[c], from, to)
					vis, agent, tc := p.vis[c][lo:hi], p.agent[c][lo:hi], t[c]
					size := x.spaceOf(c)
					for k, a := range agent {
						tc[a].add(vis[k], size)
					}
				}
			}
			tallies[w] = &t
		}()
	}
	wg.Wait()
	t := tallies[0]
	for c := AI; c < numClasses; c++ {
		for a := range t[c] {
			for _, o := range tallies[1:] {
				t[c][a].merge(&o[c][a], x.spaceOf(c))
			}
		}
	}
	return t
}

// agentRows are the export's rows of tallies.
func (x *index) agentRows(t *[numClasses][]agentTally) []AgentRow {
	rows := []AgentRow{}
	for c := AI; c < numClasses; c++ {
		for a := range t[c] {
			if t[c][a].views > 0 {
				rows = append(rows, agentRow(x.agents[a], c, t[c][a].views, t[c][a].count()))
			}
		}
	}
	return rows
}

// agentPages (x.mu held for reading) counts, per path, the views in
// [from, to) of class c by the agents called name, and their distinct
// visitors.
func (x *index) agentPages(from, to int64, name string, c Class) []AgentPageRow {
	want := make([]bool, len(x.agents))
	found := false
	for a, ag := range x.agents {
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
		vis, agent := p.vis[c][lo:hi], p.agent[c][lo:hi]
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

// spaceOf is how many dense visitor ids class c's views use.
func (x *index) spaceOf(c Class) int {
	if c.IsVisitor() {
		return x.nVisitors
	}
	return x.nCrawlers
}

// pathPosition is the position in x.paths of the path called name, -1
// when there is none.
func (x *index) pathPosition(name string) int {
	return slices.IndexFunc(x.paths, func(p *pathViews) bool { return p.name == name })
}

// agentTally is one agent's views in a range and their distinct visitors:
// the visitors' dense ids as they come, until they would take more memory
// than a bitset of every visitor, then that bitset. Most agents are seen
// a few times, so a query over hundreds of them holds no bitset for each.
type agentTally struct {
	views int
	ids   []uint32
	bits  bitset
}

// add counts a view of visitor v among size visitors.
func (t *agentTally) add(v uint32, size int) {
	t.views++
	if t.bits != nil {
		t.bits.set(v)
		return
	}
	t.ids = append(t.ids, v)
	if len(t.ids) > size/32+64 {
		t.toBits(size)
	}
}

func (t *agentTally) toBits(size int) {
	t.bits = newBitset(size)
	for _, v := range t.ids {
		t.bits.set(v)
	}
	t.ids = nil
}

// merge adds o's views and visitors to t's.
func (t *agentTally) merge(o *agentTally, size int) {
	t.views += o.views
	if o.bits != nil && t.bits == nil {
		t.toBits(size)
	}
	if t.bits != nil {
		if o.bits != nil {
			t.bits.or(o.bits)
		}
		for _, v := range o.ids {
			t.bits.set(v)
		}
		return
	}
	t.ids = append(t.ids, o.ids...)
}

// bitmap is the visitors as a bitmap.
func (t *agentTally) bitmap() *roaring.Bitmap {
	if t.bits == nil {
		ids := slices.Clone(t.ids)
		slices.Sort(ids)
		return roaring.BitmapOf(ids...)
	}
	b := roaring.New()
	var ids []uint32
	for w, word := range t.bits {
		for ; word != 0; word &= word - 1 {
			ids = append(ids, uint32(w*64+bits.TrailingZeros64(word))) // #nosec G115 -- a bit of a bitset of dense ids, which are 32 bits
		}
	}
	b.AddMany(ids)
	return b
}

// count is the distinct visitors.
func (t *agentTally) count() int {
	if t.bits != nil {
		return t.bits.count()
	}
	slices.Sort(t.ids)
	return len(slices.Compact(t.ids))
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
