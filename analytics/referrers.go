package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/folio-docs/folio/model"
)

// ReferrerRow is one source's line of the referrers export (CONTRACT §3):
// the people's views that came from it and their exact distinct visitors in
// the range. Source is the referrer's host, null for direct views; Name is
// the list's name for it (ChatGPT, Google), null when no list names it.
type ReferrerRow struct {
	Source   *string `json:"source"`
	Channel  string  `json:"channel"`
	Name     *string `json:"name"`
	Views    int     `json:"views"`
	Visitors int     `json:"visitors"`
}

// Referrers is the referrers export.
type Referrers struct {
	Referrers []ReferrerRow `json:"referrers"`
	HasMore   bool          `json:"hasMore"`
}

// Referrers counts, per source people came from (one row for the direct
// views), the human views and distinct visitors in the range, narrowed to
// one page by path when it is not "". Rows are ordered as the agents
// export's: by visitors, then views, descending, then by source. It is
// counted from the index, or in SQL for a site with more referrers than
// the index tells apart.
func (s *Service) Referrers(ctx context.Context, projectID string, q Query, path string) (Referrers, error) {
	out := Referrers{Referrers: []ReferrerRow{}}
	rows, counted, err := indexOrSQL(ctx, s, projectID, q, referrersLost,
		func(x *index, from, to int64) []ReferrerRow { return x.referrerCounts(from, to, path) },
		func(site, from, to int64) ([]ReferrerRow, error) {
			counts, err := s.db.AnalyticsReferrerCounts(ctx, site, from, to, path)
			if err != nil {
				return nil, err
			}
			var rows []ReferrerRow
			for _, c := range counts {
				r, err := referralOf(c.Referral)
				if err != nil {
					return nil, err
				}
				rows = append(rows, referrerRow(r, c.Views, c.Visitors))
			}
			return rows, nil
		})
	if err != nil || !counted {
		return out, err
	}
	out.Referrers, out.HasMore = page(rows, q, compareReferrerRows)
	return out, nil
}

// referrersLost says the index tells apart too few referrers: SQL counts them.
func referrersLost(x *index) bool { return x.referrers.lost > 0 }

// referrerCounts (x.mu held for reading) counts each referrer's human
// views and distinct visitors in [from, to), over every path or the one
// called path.
func (x *index) referrerCounts(from, to int64, path string) []ReferrerRow {
	counts := originCounts(x, from, to, path, Human, Human+1, func(k originKey) []uint16 { return []uint16{k.id} })
	rows := make([]ReferrerRow, 0, len(counts))
	for id, n := range counts {
		rows = append(rows, referrerRow(x.referrers.entries[id], n.views, n.visitors))
	}
	return rows
}

// referrerRow is a referrer's row; the zero Referral is the direct views'.
func referrerRow(r Referral, views, visitors int) ReferrerRow {
	row := ReferrerRow{Channel: r.Channel.String(), Views: views, Visitors: visitors}
	if r.Source != "" {
		row.Source = &r.Source
	}
	if r.Name != "" {
		row.Name = &r.Name
	}
	return row
}

// referralOf is a stored referral as the index holds it.
func referralOf(v model.ViewReferral) (Referral, error) {
	if v == (model.ViewReferral{}) {
		return Referral{}, nil
	}
	ch, ok := ChannelByName(v.Channel)
	if !ok || ch == Direct {
		return Referral{}, fmt.Errorf("analytics: a stored referrer has the channel %q", v.Channel)
	}
	return Referral{Source: v.Source, Channel: ch, Name: v.Name}, nil
}

// compareReferrerRows is the export's order: visitors, then views,
// descending, then source (direct first), channel and name.
func compareReferrerRows(a, b ReferrerRow) int {
	if a.Visitors != b.Visitors {
		return b.Visitors - a.Visitors
	}
	if a.Views != b.Views {
		return b.Views - a.Views
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return cmp.Or(strings.Compare(str(a.Source), str(b.Source)), strings.Compare(a.Channel, b.Channel), strings.Compare(str(a.Name), str(b.Name)))
}

// ChannelRow is one channel's people: their views and exact distinct
// visitors in the range.
type ChannelRow struct {
	Channel  Channel
	Views    int
	Visitors int
}

// AssistantRow is the people one AI assistant sent (by the list's name,
// whichever of its hosts they came from).
type AssistantRow struct {
	Name     string
	Views    int
	Visitors int
}

// ChannelReport is where people came from, by channel, for the analytics
// page.
type ChannelReport struct {
	// Channels are every channel, zeros included, in the page's order:
	// AI assistants, search, social, other sites, direct.
	Channels []ChannelRow
	// Assistants are the AI assistants that sent people, by visitors,
	// then views, descending, then name.
	Assistants []AssistantRow
}

// channelOrder is the order the page lists the channels in.
var channelOrder = []Channel{AIAssistant, Search, Social, OtherReferrer, Direct}

// Channels counts the people's views and exact distinct visitors of the
// range per channel, and per AI assistant. A person who came by two
// channels is in both. It is counted from the index (a channel's visitors
// are the union of its referrers'), or in SQL for a site with more
// referrers than the index tells apart.
func (s *Service) Channels(ctx context.Context, projectID string, q Query) (ChannelReport, error) {
	out := ChannelReport{Channels: make([]ChannelRow, len(channelOrder)), Assistants: []AssistantRow{}}
	for i, c := range channelOrder {
		out.Channels[i].Channel = c
	}
	counts, _, err := indexOrSQL(ctx, s, projectID, q, referrersLost, (*index).channelCounts,
		func(site, from, to int64) ([]model.ChannelCount, error) {
			return s.db.AnalyticsChannelCounts(ctx, site, from, to)
		})
	if err != nil {
		return out, err
	}
	for _, c := range counts {
		if c.Name != "" {
			out.Assistants = append(out.Assistants, AssistantRow{Name: c.Name, Views: c.Views, Visitors: c.Visitors})
			continue
		}
		ch := Direct
		if c.Channel != "" {
			var ok bool
			if ch, ok = ChannelByName(c.Channel); !ok {
				return out, fmt.Errorf("analytics: a stored referrer has the unknown channel %q", c.Channel)
			}
		}
		i := slices.Index(channelOrder, ch)
		out.Channels[i].Views += c.Views
		out.Channels[i].Visitors += c.Visitors
	}
	slices.SortFunc(out.Assistants, func(a, b AssistantRow) int {
		return cmp.Or(b.Visitors-a.Visitors, b.Views-a.Views, strings.Compare(a.Name, b.Name))
	})
	return out, nil
}

// channelCounts (x.mu held for reading) counts the human views in [from,
// to) and their distinct visitors by channel ("" for direct) and by AI
// assistant's name, as AnalyticsChannelCounts does.
func (x *index) channelCounts(from, to int64) []model.ChannelCount {
	counts := originCounts(x, from, to, "", Human, Human+1, func(k originKey) []model.ChannelCount {
		r := x.referrers.entries[k.id]
		rows := []model.ChannelCount{{}}
		if r.Channel != Direct {
			rows[0].Channel = r.Channel.String()
		}
		if r.Channel == AIAssistant && r.Name != "" {
			rows = append(rows, model.ChannelCount{Channel: r.Channel.String(), Name: r.Name})
		}
		return rows
	})
	out := make([]model.ChannelCount, 0, len(counts))
	for c, n := range counts {
		c.Views, c.Visitors = n.views, n.visitors
		out = append(out, c)
	}
	return out
}
