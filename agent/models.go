package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/anthropics/anthropic-sdk-go"
)

// Models lists the models the configured provider offers (its /models
// list), sorted. An OpenAI-compatible server without such a list (some
// local servers) gives an error; callers then accept any model name.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	var ids []string
	switch a.cfg.Provider {
	case "anthropic":
		p := newAnthropic(a.cfg.AnthropicBaseURL, a.cfg.AnthropicAPIKey, a.cfg.HTTPClient)
		pager := p.client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{})
		for pager.Next() {
			ids = append(ids, pager.Current().ID)
		}
		if err := pager.Err(); err != nil {
			return nil, fmt.Errorf("agent: unable to list the provider's models: %w", err)
		}
	default:
		p := newOpenAI(a.cfg.OpenAIBaseURL, a.cfg.OpenAIAPIKey, a.cfg.HTTPClient)
		pager := p.client.Models.ListAutoPaging(ctx)
		for pager.Next() {
			ids = append(ids, pager.Current().ID)
		}
		if err := pager.Err(); err != nil {
			return nil, fmt.Errorf("agent: unable to list the provider's models: %w", err)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
