package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// Models lists the models the configured provider offers (its /models
// list), sorted. An OpenAI-compatible server without such a list (some
// local servers) gives an error; callers then accept any model name.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	var ids []string
	var err error
	switch a.cfg.Provider {
	case "anthropic":
		ids, err = newAnthropic(a.cfg.AnthropicBaseURL, a.cfg.AnthropicAPIKey, a.cfg.HTTPClient).models(ctx)
	default:
		ids, err = newOpenAI(a.cfg.OpenAIBaseURL, a.cfg.OpenAIAPIKey, a.cfg.HTTPClient).models(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: unable to list the provider's models: %w", err)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

type modelList struct {
	Data []struct {
		ID jsonText `json:"id"`
	} `json:"data"`
	HasMore *bool    `json:"has_more"` // Anthropic's pages
	LastID  jsonText `json:"last_id"`
}

// models is GET {base}/models, one page.
func (p *openaiProvider) models(ctx context.Context) ([]string, error) {
	var l modelList
	if err := p.api.call(ctx, http.MethodGet, "models", nil, nil, &l); err != nil {
		return nil, openaiRefusal(err)
	}
	var ids []string
	for _, m := range l.Data {
		ids = append(ids, string(m.ID))
	}
	return ids, nil
}

// models is GET /v1/models, page after page (after_id) while there are more.
func (p *anthropicProvider) models(ctx context.Context) ([]string, error) {
	if !p.hasKey {
		return nil, errors.New("no Anthropic API key")
	}
	var ids []string
	q := url.Values{}
	for {
		var l modelList
		if err := p.api.call(ctx, http.MethodGet, "v1/models", q, nil, &l); err != nil {
			return nil, anthropicRefusal(err)
		}
		for _, m := range l.Data {
			ids = append(ids, string(m.ID))
		}
		if len(l.Data) == 0 || (l.HasMore != nil && !*l.HasMore) || l.LastID == "" {
			return ids, nil
		}
		q = url.Values{"after_id": {string(l.LastID)}}
	}
}
