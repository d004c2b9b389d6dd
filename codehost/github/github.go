// Package github is the GitHub code host: clone and push over HTTPS with a
// token, and open or update the job's pull request through the REST API
// (github.com or GitHub Enterprise).
package github

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/internal/git"
	"github.com/folio-docs/folio/model"
)

// TokenSource hands out the token for API calls and git over HTTPS: a
// personal or fine-grained token (StaticToken) or a GitHub App's
// installation token (AppToken).
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// StaticToken is a token that does not change (FOLIO_GITHUB_TOKEN).
type StaticToken string

func (t StaticToken) Token(context.Context) (string, error) { return string(t), nil }

// Host is one repository on GitHub.
type Host struct {
	owner, name string
	apiURL      *url.URL
	tokens      TokenSource
	httpClient  *http.Client
}

// New serves the repository "owner/name" through the API at apiURL
// (https://api.github.com/ or an Enterprise https://host/api/v3/).
func New(repo, apiURL string, tokens TokenSource, httpClient *http.Client) (*Host, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" {
		return nil, fmt.Errorf("github: repository %q is not owner/name", repo)
	}
	u, err := parseAPIURL(apiURL)
	if err != nil {
		return nil, err
	}
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &Host{owner: owner, name: name, apiURL: u, tokens: tokens, httpClient: httpClient}, nil
}

// RepositoryURL is the web address of the repository "owner/name" on the
// GitHub whose API is at apiURL: https://github.com/owner/name for
// api.github.com, the Enterprise Server's host for https://host/api/v3/,
// https://sub.ghe.com for GitHub Enterprise Cloud's https://api.sub.ghe.com/.
// An API URL that is none of these (a test's server) gives its own host.
func RepositoryURL(apiURL, repo string) string {
	u, err := url.Parse(apiURL)
	if apiURL == "" || err != nil || u.Host == "" {
		u = &url.URL{Scheme: "https", Host: "api.github.com"}
	}
	host := u.Host
	if rest, ok := strings.CutPrefix(host, "api."); ok && (rest == "github.com" || strings.HasSuffix(rest, ".ghe.com")) {
		host = rest
	}
	return (&url.URL{Scheme: u.Scheme, Host: host}).String() + "/" + strings.TrimSuffix(repo, ".git")
}

// parseAPIURL checks an API base URL and gives it the trailing slash
// go-github needs.
func parseAPIURL(apiURL string) (*url.URL, error) {
	u, err := url.Parse(apiURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("github: API URL %q is not an absolute URL", apiURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

func (h *Host) client(ctx context.Context) (*gh.Client, string, error) {
	token, err := h.tokens.Token(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("github: unable to get a token: %w", err)
	}
	c := gh.NewClient(h.httpClient).WithAuthToken(token)
	c.BaseURL = h.apiURL
	return c, token, nil
}

// Remote is the repository's HTTPS clone URL, with the token passed to git
// as a header through the environment, never in the URL or argv.
func (h *Host) Remote(ctx context.Context) (codehost.Remote, error) {
	c, token, err := h.client(ctx)
	if err != nil {
		return codehost.Remote{}, err
	}
	repo, _, err := c.Repositories.Get(ctx, h.owner, h.name)
	if err != nil {
		return codehost.Remote{}, fmt.Errorf("github: unable to get repository %s/%s: %w", h.owner, h.name, apiError(err))
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	return codehost.Remote{URL: repo.GetCloneURL(), Env: git.AuthEnv("Authorization: Basic " + basic)}, nil
}

// Publish updates the branch's open pull request, or opens one.
func (h *Host) Publish(ctx context.Context, pr codehost.PullRequest) (string, error) {
	c, _, err := h.client(ctx)
	if err != nil {
		return "", err
	}
	open, _, err := c.PullRequests.List(ctx, h.owner, h.name, &gh.PullRequestListOptions{
		State: "open", Head: h.owner + ":" + pr.Branch, Base: pr.Base,
	})
	if err != nil {
		return "", fmt.Errorf("github: unable to look for the pull request of %s: %w", pr.Branch, apiError(err))
	}
	if len(open) > 0 {
		existing := open[0]
		// The title stays as the reviewers first saw it; the body tracks the conversation.
		updated, _, err := c.PullRequests.Edit(ctx, h.owner, h.name, existing.GetNumber(), &gh.PullRequest{Body: gh.String(pr.Body)})
		if err != nil {
			return "", fmt.Errorf("github: unable to update pull request #%d: %w", existing.GetNumber(), apiError(err))
		}
		if pr.BackToDraft && !updated.GetDraft() {
			if err := h.convertToDraft(ctx, c, updated.GetNodeID()); err != nil {
				return updated.GetHTMLURL(), &codehost.StillReadyError{Number: updated.GetNumber(), Reason: err.Error()}
			}
		}
		return updated.GetHTMLURL(), nil
	}
	created, _, err := c.PullRequests.Create(ctx, h.owner, h.name, &gh.NewPullRequest{
		Title: gh.String(pr.Title), Head: gh.String(pr.Branch), Base: gh.String(pr.Base),
		Body: gh.String(pr.Body), Draft: gh.Bool(pr.Draft), MaintainerCanModify: gh.Bool(true),
	})
	if err != nil {
		return "", fmt.Errorf("github: unable to open a pull request for %s: %w", pr.Branch, apiError(err))
	}
	return created.GetHTMLURL(), nil
}

// convertToDraft turns the open pull request nodeID back into a draft.
// GitHub's REST API cannot (an update's "draft" is ignored, and go-github
// has nothing for it): only GraphQL's convertPullRequestToDraft mutation
// does, which a token may be refused (a GitHub App's, say, "Resource not
// accessible by integration").
func (h *Host) convertToDraft(ctx context.Context, c *gh.Client, nodeID string) error {
	body := map[string]any{
		"query":     "mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
		"variables": map[string]any{"id": nodeID},
	}
	req, err := c.NewRequest(http.MethodPost, graphQLURL(h.apiURL), body)
	if err != nil {
		return fmt.Errorf("github: unable to build a GraphQL request: %w", err)
	}
	// GraphQL answers 200 with its errors in the body.
	var out struct {
		Data struct {
			ConvertPullRequestToDraft *struct {
				PullRequest struct {
					IsDraft bool `json:"isDraft"`
				} `json:"pullRequest"`
			} `json:"convertPullRequestToDraft"`
		} `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := c.Do(ctx, req, &out); err != nil {
		return apiError(err)
	}
	if len(out.Errors) > 0 {
		msgs := make([]string, len(out.Errors))
		for i, e := range out.Errors {
			msgs[i] = e.Message
		}
		return errors.New("GitHub's GraphQL API refused: " + strings.Join(msgs, "; "))
	}
	if d := out.Data.ConvertPullRequestToDraft; d == nil || !d.PullRequest.IsDraft {
		return errors.New("GitHub did not say the pull request is a draft")
	}
	return nil
}

// graphQLURL is the GraphQL endpoint beside the REST API at apiURL:
// https://api.github.com/graphql, and https://host/api/graphql for an
// Enterprise Server's https://host/api/v3/.
func graphQLURL(apiURL *url.URL) string {
	u := *apiURL
	if base, ok := strings.CutSuffix(u.Path, "/api/v3/"); ok {
		u.Path = base + "/api/graphql"
	} else {
		u.Path += "graphql"
	}
	return u.String()
}

// apiError keeps GitHub's message and drops the request (whose URL is
// harmless but whose dump could carry headers).
func apiError(err error) error {
	var e *gh.ErrorResponse
	if errors.As(err, &e) && e.Response != nil {
		msg := e.Message
		for _, d := range e.Errors {
			if d.Message != "" {
				msg += "; " + d.Message
			}
		}
		return &StatusError{Status: e.Response.StatusCode, Message: msg}
	}
	return err
}

// StatusError is GitHub refusing a request.
type StatusError struct {
	Status  int
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GitHub answered %d: %s", e.Status, e.Message)
}

// Permanent reports whether retrying cannot help (bad token, no access, no
// such repository, a refused pull request), as opposed to 429 and 5xx.
func (e *StatusError) Permanent() bool {
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests && e.Status != http.StatusRequestTimeout
}

// isStatus reports whether err is GitHub answering status.
func isStatus(err error, status int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == status
}

// CheckRef asks GitHub for the repository, then for its branch ref.
func (h *Host) CheckRef(ctx context.Context, ref string) error {
	c, _, err := h.client(ctx)
	if err != nil {
		return err
	}
	if _, _, err := c.Repositories.Get(ctx, h.owner, h.name); err != nil {
		if err = apiError(err); isStatus(err, http.StatusNotFound) { // GitHub hides private repositories behind 404
			return fmt.Errorf("github: %s/%s: %w", h.owner, h.name, codehost.ErrRepositoryNotFound)
		}
		return fmt.Errorf("github: unable to get repository %s/%s: %w", h.owner, h.name, err)
	}
	// GetBranch reports a refusal as a plain error; the status is in resp.
	if _, resp, err := c.Repositories.GetBranch(ctx, h.owner, h.name, ref, 1); err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("github: %s/%s has no branch %q: %w", h.owner, h.name, ref, codehost.ErrRefNotFound)
		}
		if resp != nil {
			err = &StatusError{Status: resp.StatusCode, Message: err.Error()}
		}
		return fmt.Errorf("github: unable to get branch %q of %s/%s: %w", ref, h.owner, h.name, err)
	}
	return nil
}

// Changes is GitHub's three-dot comparison of base and branch as a
// unified diff; a branch GitHub does not know has no changes.
func (h *Host) Changes(ctx context.Context, base, branch string) (codehost.Changes, error) {
	ch := codehost.Changes{Base: base, Branch: branch, Files: []codehost.FileChange{}}
	c, _, err := h.client(ctx)
	if err != nil {
		return ch, err
	}
	diff, _, err := c.Repositories.CompareCommitsRaw(ctx, h.owner, h.name, base, branch, gh.RawOptions{Type: gh.Diff})
	if err != nil {
		if err = apiError(err); isStatus(err, http.StatusNotFound) {
			if cerr := h.CheckRef(ctx, base); cerr != nil {
				return ch, cerr
			}
			return ch, nil // the branch was never pushed
		}
		return ch, fmt.Errorf("github: unable to compare %s with %s: %w", branch, base, err)
	}
	ch.Diff, ch.Files = diff, codehost.ParseDiff(diff)
	return ch, nil
}

// Merge merges the branch's open pull request with a merge commit.
func (h *Host) Merge(ctx context.Context, base, branch string) (string, error) {
	c, _, err := h.client(ctx)
	if err != nil {
		return "", err
	}
	open, _, err := c.PullRequests.List(ctx, h.owner, h.name, &gh.PullRequestListOptions{
		State: "open", Head: h.owner + ":" + branch, Base: base,
	})
	if err != nil {
		return "", fmt.Errorf("github: unable to look for the pull request of %s: %w", branch, apiError(err))
	}
	if len(open) == 0 {
		return "", fmt.Errorf("github: %s has no open pull request into %s: %w", branch, base, model.ErrNothingToMerge)
	}
	pr := open[0]
	res, _, err := c.PullRequests.Merge(ctx, h.owner, h.name, pr.GetNumber(), "", &gh.PullRequestOptions{MergeMethod: "merge", SHA: pr.GetHead().GetSHA()})
	if err != nil {
		err = apiError(err)
		// 405: not mergeable (conflicts, a draft, failing checks); 409: the head moved.
		if isStatus(err, http.StatusMethodNotAllowed) || isStatus(err, http.StatusConflict) {
			return "", fmt.Errorf("github: pull request #%d: %v: %w", pr.GetNumber(), err, model.ErrMergeConflict)
		}
		return "", fmt.Errorf("github: unable to merge pull request #%d: %w", pr.GetNumber(), err)
	}
	if !res.GetMerged() {
		return "", fmt.Errorf("github: pull request #%d was not merged: %s: %w", pr.GetNumber(), res.GetMessage(), model.ErrMergeConflict)
	}
	return res.GetSHA(), nil
}

// PullRequestDiff is pull request number's diff as GitHub shows it; for a
// merged pull request, the change its merge brought.
func (h *Host) PullRequestDiff(ctx context.Context, number int) (string, error) {
	c, _, err := h.client(ctx)
	if err != nil {
		return "", err
	}
	diff, _, err := c.PullRequests.GetRaw(ctx, h.owner, h.name, number, gh.RawOptions{Type: gh.Diff})
	if err != nil {
		return "", fmt.Errorf("github: unable to get the diff of pull request #%d: %w", number, apiError(err))
	}
	return diff, nil
}
