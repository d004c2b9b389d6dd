package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
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
// counted in SQL over the stored views.
func (s *Service) Referrers(ctx context.Context, projectID string, q Query, path string) (Referrers, error) {
	out := Referrers{Referrers: []ReferrerRow{}}
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return out, err
	}
	from, to := q.bounds()
	counts, err := s.db.AnalyticsReferrerCounts(ctx, st.id, from, to, path)
	if err != nil {
		return out, err
	}
	rows := make([]ReferrerRow, 0, len(counts))
	for _, c := range counts {
		r := ReferrerRow{Channel: Direct.String(), Views: c.Views, Visitors: c.Visitors}
		if c.Referral.Source != "" {
			source := c.Referral.Source
			r.Source, r.Channel = &source, c.Referral.Channel
		}
		if c.Referral.Name != "" {
			name := c.Referral.Name
			r.Name = &name
		}
		rows = append(rows, r)
	}
	out.Referrers, out.HasMore = page(rows, q, compareReferrerRows)
	return out, nil
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
// channels is in both. It is counted in SQL over the stored views.
func (s *Service) Channels(ctx context.Context, projectID string, q Query) (ChannelReport, error) {
	out := ChannelReport{Channels: make([]ChannelRow, len(channelOrder)), Assistants: []AssistantRow{}}
	for i, c := range channelOrder {
		out.Channels[i].Channel = c
	}
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return out, err
	}
	from, to := q.bounds()
	counts, err := s.db.AnalyticsChannelCounts(ctx, st.id, from, to)
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
