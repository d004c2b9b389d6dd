package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/hosts"
	"github.com/folio-docs/folio/projects"
)

// codeHosts is how this process reaches code hosts: GitHub with the App's
// installation tokens or FOLIO_GITHUB_TOKEN, local repositories on disk.
func (a *app) codeHosts() (hosts.Config, error) {
	c := hosts.Config{BaseURL: a.cfg.BaseURL, GitHubAPIURL: a.cfg.GitHubAPIURL}
	switch {
	case a.cfg.GitHubAppID != 0:
		t, err := github.NewAppToken(a.cfg.GitHubAppID, a.cfg.GitHubAppInstallationID, a.cfg.GitHubAppPrivateKey, a.cfg.GitHubAPIURL, nil)
		if err != nil {
			return c, fmt.Errorf("unable to use the GitHub App: %w", err)
		}
		c.GitHubTokens = t
	case a.cfg.GitHubToken != "":
		c.GitHubTokens = github.StaticToken(a.cfg.GitHubToken)
	}
	return c, nil
}

// projectValidator checks project settings for the operator's CLI, which
// may connect any repository on the machine (the dashboard adds a policy).
func (a *app) projectValidator() projects.Validator {
	return projects.Validator{Hosts: a.hosts, AllowPrivateWebhooks: a.cfg.WebhookAllowPrivate}
}

// adminProjectValidator checks project settings for the dashboard's admins,
// who may connect only the repositories the policy allows.
func (a *app) adminProjectValidator() projects.Validator {
	v := a.projectValidator()
	v.Policy = &codehost.Policy{LocalRoot: a.cfg.LocalRepos, GitHubOwners: a.cfg.GitHubOwners}
	return v
}

// newRunner builds the agent runtime the worker hands jobs to.
func (a *app) newRunner() (agent.Runner, error) {
	// One client for the model and GitHub APIs, as patient as a run's longest call.
	client := &http.Client{Timeout: 10 * time.Minute}
	h := a.hosts
	// A worker away from serve's disk reaches local repositories through
	// serve, and links to serve's pages (its BaseURL comes from serve).
	h.BaseURL, h.ServerURL, h.WorkerToken, h.HTTPClient = a.cfg.BaseURL, a.cfg.ServerURL, a.cfg.WorkerToken, client
	r, err := agent.New(agent.Config{
		Hosts:            h,
		Provider:         a.cfg.ModelProvider,
		OpenAIBaseURL:    a.cfg.OpenAIBaseURL,
		OpenAIAPIKey:     a.cfg.OpenAIAPIKey,
		AnthropicBaseURL: a.cfg.AnthropicBaseURL,
		AnthropicAPIKey:  a.cfg.AnthropicAPIKey,
		DataDir:          a.cfg.DataDir,
		JobMaxTokens:     a.cfg.AgentJobTokens,
		MaxOutputTokens:  a.cfg.MaxOutputTokens,
		Prices:           a.cfg.ModelPrices,
		HTTPClient:       client,
		Log:              a.log,
	})
	if err != nil {
		return nil, fmt.Errorf("unable to start the agent runtime: %w", err)
	}
	return r, nil
}
