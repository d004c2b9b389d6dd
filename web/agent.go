package main

import (
	"fmt"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost/github"
)

// newRunner builds the agent runtime the worker hands jobs to.
func (a *app) newRunner() (agent.Runner, error) {
	var appTokens github.TokenSource
	if a.cfg.GitHubAppID != 0 {
		t, err := github.NewAppToken(a.cfg.GitHubAppID, a.cfg.GitHubAppInstallationID, a.cfg.GitHubAppPrivateKey, a.cfg.GitHubAPIURL, nil)
		if err != nil {
			return nil, fmt.Errorf("unable to use the GitHub App: %w", err)
		}
		appTokens = t
	}
	r, err := agent.New(agent.Config{
		GitHubTokens:     appTokens,
		Provider:         a.cfg.ModelProvider,
		OpenAIBaseURL:    a.cfg.OpenAIBaseURL,
		OpenAIAPIKey:     a.cfg.OpenAIAPIKey,
		AnthropicBaseURL: a.cfg.AnthropicBaseURL,
		AnthropicAPIKey:  a.cfg.AnthropicAPIKey,
		GitHubToken:      a.cfg.GitHubToken,
		GitHubAPIURL:     a.cfg.GitHubAPIURL,
		BaseURL:          a.cfg.BaseURL,
		ServerURL:        a.cfg.ServerURL,
		WorkerToken:      a.cfg.WorkerToken,
		DataDir:          a.cfg.DataDir,
		Log:              a.log,
	})
	if err != nil {
		return nil, fmt.Errorf("unable to start the agent runtime: %w", err)
	}
	return r, nil
}
