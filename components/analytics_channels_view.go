package components

import "strconv"

// ChannelsView is the analytics page's "Where people come from" panel:
// human visitors by channel, the AI assistants that sent them named. The
// page first shows it unloaded, a placeholder that asks URL for the panel
// once the page is shown: counting it reads the range's views.
type ChannelsView struct {
	URL        string // the page's URL for the range; it answers the panel alone to HX-Target: channels
	Loaded     bool
	Channels   []ChannelVisitors   // every channel, in the page's order
	Assistants []AssistantVisitors // the AI assistants that sent people, most visitors first
}

// ChannelVisitors is one channel's row: its people, each counted once, and
// their page views.
type ChannelVisitors struct {
	Key             string // the API's name: aiAssistant, search, social, other, direct
	Label           string
	Note            string
	Visitors, Views int
}

// AssistantVisitors is the people one AI assistant sent.
type AssistantVisitors struct {
	Name            string
	Visitors, Views int
}

// empty says whether no person came in the range.
func (c ChannelsView) empty() bool {
	for _, ch := range c.Channels {
		if ch.Visitors > 0 {
			return false
		}
	}
	return true
}

// barWidth is n's bar as a share of the largest channel's visitors.
func (c ChannelsView) barWidth(n int) string {
	most := 0
	for _, ch := range c.Channels {
		most = max(most, ch.Visitors)
	}
	if most == 0 || n == 0 {
		return "0%"
	}
	return strconv.FormatFloat(max(1, 100*float64(n)/float64(most)), 'f', 1, 64) + "%"
}
