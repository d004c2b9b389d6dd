package dashboard

import (
	"net/http"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/components"
)

// channelLabels name the channels on the page, in its order.
var channelLabels = map[analytics.Channel][2]string{
	analytics.AIAssistant:   {"AI assistants", "ChatGPT, Perplexity, Claude, Gemini, Copilot…"},
	analytics.Search:        {"Search", "Google, Bing, DuckDuckGo…"},
	analytics.Social:        {"Social", "Hacker News, reddit, LinkedIn, X…"},
	analytics.OtherReferrer: {"Other sites", "links from anywhere else"},
	analytics.Direct:        {"Direct", "no referrer, or your own pages"},
}

// analyticsChannels answers the analytics page's channels panel alone, for
// the placeholder the page shows (HX-Target: channels): counting it reads
// every view of the range, so the page does not wait for it.
func (d *Dashboard) analyticsChannels(w http.ResponseWriter, r *http.Request, projectID string, q analytics.Query, url string) {
	rep, err := d.analytics.Channels(r.Context(), projectID, q)
	if err != nil {
		d.pageError(w, r, http.StatusInternalServerError, err)
		return
	}
	d.render(w, r, http.StatusOK, components.AnalyticsChannels(ShowChannels(url, rep)))
}

// ShowChannels is the channels panel of a report.
func ShowChannels(url string, rep analytics.ChannelReport) components.ChannelsView {
	v := components.ChannelsView{URL: url, Loaded: true}
	for _, c := range rep.Channels {
		l := channelLabels[c.Channel]
		v.Channels = append(v.Channels, components.ChannelVisitors{Key: c.Channel.String(), Label: l[0], Note: l[1], Visitors: c.Visitors, Views: c.Views})
	}
	for _, a := range rep.Assistants {
		v.Assistants = append(v.Assistants, components.AssistantVisitors{Name: a.Name, Visitors: a.Visitors, Views: a.Views})
	}
	return v
}
