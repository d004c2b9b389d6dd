// Package hosts picks a project's code host from its repository setting:
// GitHub for owner/name, the embedded local host for a path (on disk, or
// through serve from a worker away from its disk). It is the one place that
// choice is made, for the agent, the job API and the dashboard; they take it
// through small interfaces of their own, from the composition root.
package hosts

import (
	"net/http"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/github"
	"github.com/folio-docs/folio/codehost/local"
)

// Config is what reaching the hosts takes.
type Config struct {
	BaseURL      string             // FOLIO_BASE_URL, for the local review page
	GitHubAPIURL string             // FOLIO_GITHUB_API_URL
	GitHubTokens github.TokenSource // nil: GitHub cannot be reached
	HTTPClient   *http.Client       // for the GitHub API
	// ServerURL and WorkerToken, on a worker away from serve's disk, reach
	// local repositories through serve's git HTTP (FOLIO_SERVER_URL); see
	// OpenProject.
	ServerURL   string
	WorkerToken string
}

// Open returns the host of repo (CONTRACT §7's REPO), as serve reaches it:
// a local repository on this machine's disk. A repository setting that
// parses as neither kind is an error from codehost.ParseRepository; a
// GitHub repository without a token is codehost.ErrNoGitHubToken.
func (c Config) Open(repo string) (codehost.Host, error) {
	kind, location, err := codehost.ParseRepository(repo)
	if err != nil {
		return nil, err
	}
	if kind == codehost.KindLocal {
		return local.New(location, c.BaseURL), nil
	}
	if c.GitHubTokens == nil {
		return nil, codehost.ErrNoGitHubToken
	}
	api := c.GitHubAPIURL
	if api == "" {
		api = "https://api.github.com/"
	}
	return github.New(location, api, c.GitHubTokens, c.HTTPClient)
}

// RepositoryURL is project projectID's repository repo as a job's
// source.repository shows it, the repository's URL as Mintlify documents
// it: the GitHub repository's web address (on the Enterprise host when
// GitHubAPIURL names one), or serve's clone URL of a local repository
// (CONTRACT §2), which a key of the project opens. A setting that parses
// as neither is shown as it is.
func (c Config) RepositoryURL(projectID, repo string) string {
	kind, location, err := codehost.ParseRepository(repo)
	switch {
	case err != nil:
		return repo
	case kind == codehost.KindLocal:
		return local.GitURL(c.BaseURL, projectID)
	}
	return github.RepositoryURL(c.GitHubAPIURL, location)
}

// OpenProject returns the host of project projectID's repository repo as
// an agent run reaches it: like Open, but on a worker with a ServerURL a
// local repository is reached through serve.
func (c Config) OpenProject(projectID, repo string) (codehost.Host, error) {
	if kind, _, err := codehost.ParseRepository(repo); err == nil && kind == codehost.KindLocal && c.ServerURL != "" {
		return local.NewOverHTTP(c.ServerURL, projectID, c.WorkerToken, c.BaseURL), nil
	}
	return c.Open(repo)
}
