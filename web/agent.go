package main

import (
	"fmt"

	"github.com/folio-docs/folio/agent"
)

// newRunner builds the agent runtime the worker hands jobs to.
func (a *app) newRunner() (agent.Runner, error) {
	r, err := agent.New(agent.Config{
		Provider:         a.cfg.ModelProvider,
		OpenAIBaseURL:    a.cfg.OpenAIBaseURL,
		OpenAIAPIKey:     a.cfg.OpenAIAPIKey,
		AnthropicBaseURL: a.cfg.AnthropicBaseURL,
		AnthropicAPIKey:  a.cfg.AnthropicAPIKey,
		GitHubToken:      a.cfg.GitHubToken,
		GitHubAPIURL:     a.cfg.GitHubAPIURL,
		BaseURL:          a.cfg.BaseURL,
		DataDir:          a.cfg.DataDir,
		Log:              a.log,
	})
	if err != nil {
		return nil, fmt.Errorf("unable to start the agent runtime: %w", err)
	}
	return r, nil
}
