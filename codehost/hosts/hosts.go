// Package hosts picks a project's code host from its repository setting:
// GitHub for owner/name, the embedded local host for a path. It is the one
// place that choice is made, for the agent, the job API and the dashboard.
package hosts

import (
	"errors"
	"net/http"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/local"
)

// ErrNoGitHubToken means a GitHub repository was asked for on a server
// without FOLIO_GITHUB_TOKEN (or a GitHub App).
var ErrNoGitHubToken = errors.New("FOLIO_GITHUB_TOKEN is not set; the project's repository is on GitHub")

// Config is what reaching the hosts takes.
type Config struct {
	BaseURL      string             // FOLIO_BASE_URL, for the local review page
	GitHubAPIURL string             // FOLIO_GITHUB_API_URL
	GitHubTokens github.TokenSource // nil: GitHub cannot be reached
	HTTPClient   *http.Client       // for the GitHub API
}

// Open returns the host of repo (CONTRACT §7's REPO). A repository setting
// that parses as neither kind is an error from codehost.ParseRepository.
func (c Config) Open(repo string) (codehost.Host, error) {
	kind, location, err := codehost.ParseRepository(repo)
	if err != nil {
		return nil, err
	}
	if kind == codehost.KindLocal {
		return local.New(location, c.BaseURL), nil
	}
	if c.GitHubTokens == nil {
		return nil, ErrNoGitHubToken
	}
	api := c.GitHubAPIURL
	if api == "" {
		api = "https://api.github.com/"
	}
	return github.New(location, api, c.GitHubTokens, c.HTTPClient)
}
