package testenv

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi" // #nosec G504 -- the fake GitHub runs git http-backend as a CGI child, as Folio does; httpoxy hit Go CGI children
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FakeGitHub is GitHub for one repository, for tests that drive Folio's
// real go-github client and git against it. It speaks GitHub's REST wire
// format for the calls Folio makes (the repository, its branches, compare,
// pull requests and their merge), GraphQL for convertPullRequestToDraft,
// and git's smart HTTP protocol for clone
// and push, over a real bare repository: branches, diffs, conflicts and
// merge commits are git's own answers. Like GitHub it wants Token on every
// request, and it delivers signed webhooks.
type FakeGitHub struct {
	*httptest.Server
	Repo  string // owner/name
	Token string // the API wants "Bearer <Token>", git basic auth x-access-token:<Token>
	Bare  string // the bare repository, on disk

	mu       sync.Mutex
	pulls    []*FakePullRequest
	requests []FakeRequest
	badAuth  int
	delivery int // deliveries sent
	// refuseDraft makes convertPullRequestToDraft refuse, as GitHub does
	// a token without the permission.
	refuseDraft bool
}

// FakePullRequest is a pull request the fake holds.
type FakePullRequest struct {
	Number      int
	Head, Base  string // branch names
	Title, Body string
	Draft       bool
	State       string // open or closed
	Merged      bool
	MergeCommit string // the merge commit, once merged
	HeadSHA     string // the head's commit when the pull request closed (while open, the branch's tip)
	mergedDiff  string // what the merge brought, which GitHub keeps showing as the pull request's diff
}

// FakeRequest is one API request the fake received (not git's).
type FakeRequest struct {
	Method, Path string // Path unescaped: /repos/acme/docs/pulls/1/merge
	Query        url.Values
	Accept       string
	Body         map[string]any // the JSON body, if any
}

// NewFakeGitHub serves acme/docs, whose main holds files (a one-page docs
// site when nil), with the token "ghs_testtoken123".
func NewFakeGitHub(t testing.TB, files map[string]string) *FakeGitHub {
	t.Helper()
	if files == nil {
		files = map[string]string{"index.mdx": "---\ntitle: Welcome\n---\n\nHello.\n"}
	}
	g := &FakeGitHub{Repo: "acme/docs", Token: "ghs_testtoken123"}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	NewRepo(t, work, files)
	g.Bare = filepath.Join(root, "git", filepath.FromSlash(g.Repo)+".git")
	Git(t, root, "clone", "--quiet", "--bare", work, g.Bare)
	Git(t, g.Bare, "config", "http.receivepack", "true")

	gitBackend := &cgi.Handler{
		Path: filepath.Join(Git(t, root, "--exec-path"), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + filepath.Join(root, "git"), "GIT_HTTP_EXPORT_ALL=1"},
	}
	gitAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+g.Token))
	api := g.api()
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/"+g.Repo+".git/") {
			if r.Header.Get("Authorization") != gitAuth {
				w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			gitBackend.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+g.Token {
			g.mu.Lock()
			g.badAuth++
			g.mu.Unlock()
			writeGitHubError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		g.record(r)
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *FakeGitHub) api() http.Handler {
	repo := "/repos/" + g.Repo
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeGitHubError(w, http.StatusNotFound, "Not Found")
	})
	mux.HandleFunc("GET "+repo, func(w http.ResponseWriter, r *http.Request) {
		owner, name, _ := strings.Cut(g.Repo, "/")
		writeGitHubJSON(w, http.StatusOK, map[string]any{"name": name, "full_name": g.Repo, "owner": map[string]any{"login": owner},
			"private": true, "default_branch": "main", "clone_url": g.URL + "/" + g.Repo + ".git"})
	})
	mux.HandleFunc("GET "+repo+"/branches/{branch...}", func(w http.ResponseWriter, r *http.Request) {
		sha, ok := g.tip(r.PathValue("branch"))
		if !ok {
			writeGitHubError(w, http.StatusNotFound, "Branch not found")
			return
		}
		writeGitHubJSON(w, http.StatusOK, map[string]any{"name": r.PathValue("branch"), "commit": map[string]any{"sha": sha}, "protected": false})
	})
	mux.HandleFunc("GET "+repo+"/compare/{basehead...}", func(w http.ResponseWriter, r *http.Request) {
		base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
		_, baseOK := g.tip(base)
		_, headOK := g.tip(head)
		if !ok || !baseOK || !headOK {
			writeGitHubError(w, http.StatusNotFound, "Not Found")
			return
		}
		g.writeDiff(w, r, base, head)
	})
	mux.HandleFunc("GET "+repo+"/pulls", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		state := q.Get("state")
		if state == "" {
			state = "open"
		}
		_, head, _ := strings.Cut(q.Get("head"), ":")
		g.mu.Lock()
		defer g.mu.Unlock()
		list := []any{}
		for _, p := range g.pulls {
			if (state == "all" || p.State == state) && (head == "" || p.Head == head) && (q.Get("base") == "" || p.Base == q.Get("base")) {
				list = append(list, g.pullJSON(p))
			}
		}
		writeGitHubJSON(w, http.StatusOK, list)
	})
	mux.HandleFunc("POST "+repo+"/pulls", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Title, Head, Base, Body string
			Draft                   bool
		}
		if !decodeGitHubJSON(w, r, &in) {
			return
		}
		if _, branch, ok := strings.Cut(in.Head, ":"); ok {
			in.Head = branch
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		_, headOK := g.tip(in.Head)
		_, baseOK := g.tip(in.Base)
		if !headOK || !baseOK {
			writeGitHubError(w, http.StatusUnprocessableEntity, "Validation Failed", "head or base does not exist")
			return
		}
		for _, p := range g.pulls {
			if p.State == "open" && p.Head == in.Head && p.Base == in.Base {
				writeGitHubError(w, http.StatusUnprocessableEntity, "Validation Failed", "A pull request already exists for "+g.owner()+":"+in.Head+".")
				return
			}
		}
		if n, err := g.git("rev-list", "--count", "refs/heads/"+in.Base+"..refs/heads/"+in.Head); err != nil || strings.TrimSpace(n) == "0" {
			writeGitHubError(w, http.StatusUnprocessableEntity, "Validation Failed", "No commits between "+in.Base+" and "+in.Head)
			return
		}
		p := &FakePullRequest{Number: len(g.pulls) + 1, Head: in.Head, Base: in.Base, Title: in.Title, Body: in.Body, Draft: in.Draft, State: "open"}
		g.pulls = append(g.pulls, p)
		writeGitHubJSON(w, http.StatusCreated, g.pullJSON(p))
	})
	mux.HandleFunc("PATCH "+repo+"/pulls/{number}", g.withPull(func(w http.ResponseWriter, r *http.Request, p *FakePullRequest) {
		var in struct{ Title, Body *string }
		if !decodeGitHubJSON(w, r, &in) {
			return
		}
		if in.Title != nil {
			p.Title = *in.Title
		}
		if in.Body != nil {
			p.Body = *in.Body
		}
		writeGitHubJSON(w, http.StatusOK, g.pullJSON(p))
	}))
	mux.HandleFunc("GET "+repo+"/pulls/{number}", g.withPull(func(w http.ResponseWriter, r *http.Request, p *FakePullRequest) {
		switch {
		case !strings.Contains(r.Header.Get("Accept"), "diff"):
			writeGitHubJSON(w, http.StatusOK, g.pullJSON(p))
		case p.Merged:
			w.Header().Set("Content-Type", "application/vnd.github.v3.diff; charset=utf-8")
			_, _ = io.WriteString(w, p.mergedDiff) // the test's client reads it; a failed write fails that test
		default:
			g.writeDiff(w, r, p.Base, p.Head)
		}
	}))
	mux.HandleFunc("PUT "+repo+"/pulls/{number}/merge", g.withPull(func(w http.ResponseWriter, r *http.Request, p *FakePullRequest) {
		var in struct{ SHA string }
		if r.ContentLength != 0 && !decodeGitHubJSON(w, r, &in) {
			return
		}
		status, message := g.merge(p, in.SHA)
		if status != http.StatusOK {
			writeGitHubError(w, status, message)
			return
		}
		writeGitHubJSON(w, http.StatusOK, map[string]any{"sha": p.MergeCommit, "merged": true, "message": message})
	}))
	// GraphQL, for the one mutation REST lacks: answered 200 with "errors"
	// when refused, as GitHub does.
	mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Query     string
			Variables map[string]any
		}
		if !decodeGitHubJSON(w, r, &in) {
			return
		}
		if !strings.Contains(in.Query, "convertPullRequestToDraft(input: {pullRequestId: $id})") {
			writeGitHubJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "the fake GitHub answers only convertPullRequestToDraft"}}})
			return
		}
		id, _ := in.Variables["id"].(string)
		g.mu.Lock()
		defer g.mu.Unlock()
		var p *FakePullRequest
		for _, q := range g.pulls {
			if nodeID(q.Number) == id {
				p = q
			}
		}
		refuse := func(kind, message string) {
			writeGitHubJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"convertPullRequestToDraft": nil},
				"errors": []any{map[string]any{"type": kind, "path": []string{"convertPullRequestToDraft"}, "message": message}}})
		}
		switch {
		case p == nil:
			refuse("NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id))
		case g.refuseDraft:
			refuse("FORBIDDEN", "Resource not accessible by integration")
		default:
			p.Draft = true
			writeGitHubJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"convertPullRequestToDraft": map[string]any{"pullRequest": map[string]any{"isDraft": true}}}})
		}
	})
	return mux
}

// nodeID is the GraphQL id of pull request number.
func nodeID(number int) string { return fmt.Sprintf("PR_kwDOfake%04d", number) }

// MarkReadyOnGitHub marks pull request number ready for review, as a
// reviewer on GitHub would.
func (g *FakeGitHub) MarkReadyOnGitHub(t testing.TB, number int) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mustPull(t, number).Draft = false
}

// RefuseDraftConversion makes GitHub refuse to turn a pull request back
// into a draft, as it refuses a token without the permission.
func (g *FakeGitHub) RefuseDraftConversion() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refuseDraft = true
}

// merge merges p as GitHub's merge button does, with a merge commit, if
// its head is still sha (any head when sha is empty). It answers GitHub's
// status and message; the caller holds g.mu.
func (g *FakeGitHub) merge(p *FakePullRequest, sha string) (int, string) {
	head, _ := g.tip(p.Head)
	base, ok := g.tip(p.Base)
	switch {
	case p.State != "open" || !ok:
		return http.StatusMethodNotAllowed, "Pull Request is not mergeable"
	case p.Draft:
		return http.StatusMethodNotAllowed, "Pull Request is still a draft"
	case sha != "" && sha != head:
		return http.StatusConflict, "Head branch was modified. Review and try the merge again."
	}
	diff, err := g.git("diff", base+"..."+head)
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	tree, err := g.git("merge-tree", "--write-tree", base, head)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 { // conflicts
		return http.StatusMethodNotAllowed, "Pull Request is not mergeable"
	}
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	tree, _, _ = strings.Cut(tree, "\n")
	commit, err := g.git("commit-tree", tree, "-p", base, "-p", head, "-m", fmt.Sprintf("Merge pull request #%d from %s/%s", p.Number, g.owner(), p.Head))
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	commit = strings.TrimSpace(commit)
	if _, err := g.git("update-ref", "refs/heads/"+p.Base, commit, base); err != nil {
		return http.StatusConflict, "Base branch was modified. Review and try the merge again."
	}
	p.State, p.Merged, p.MergeCommit, p.HeadSHA, p.mergedDiff = "closed", true, commit, head, diff
	return http.StatusOK, "Pull Request successfully merged"
}

// Commit commits files to branch (from main when the branch is new) and
// pushes it, as someone working on the repository would; it returns the commit.
func (g *FakeGitHub) Commit(t testing.TB, branch string, files map[string]string) string {
	t.Helper()
	work := t.TempDir()
	Git(t, work, "clone", "--quiet", g.Bare, ".")
	from := "origin/main"
	if _, ok := g.tip(branch); ok {
		from = "origin/" + branch
	}
	Git(t, work, "checkout", "--quiet", "-B", branch, from)
	WriteFiles(t, work, files)
	Git(t, work, "add", "--all")
	Git(t, work, "commit", "--quiet", "-m", "Edit "+branch)
	Git(t, work, "push", "--quiet", "origin", branch)
	return Git(t, work, "rev-parse", "HEAD")
}

// MergeOnGitHub merges pull request number as a reviewer on GitHub would.
func (g *FakeGitHub) MergeOnGitHub(t testing.TB, number int) FakePullRequest {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustPull(t, number)
	if status, message := g.merge(p, ""); status != http.StatusOK {
		t.Fatalf("fake GitHub: merging #%d: %d %s", number, status, message)
	}
	return *p
}

// CloseOnGitHub closes pull request number without merging it.
func (g *FakeGitHub) CloseOnGitHub(t testing.TB, number int) FakePullRequest {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustPull(t, number)
	p.HeadSHA, _ = g.tip(p.Head)
	p.State = "closed"
	return *p
}

// PullRequestEvent is the payload of a pull_request webhook about pull
// request number, as GitHub sends it (action "closed", say).
func (g *FakeGitHub) PullRequestEvent(t testing.TB, action string, number int) []byte {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustPull(t, number)
	_, name, _ := strings.Cut(g.Repo, "/")
	body, err := json.Marshal(map[string]any{"action": action, "number": number, "pull_request": g.pullJSON(p),
		"repository": map[string]any{"name": name, "full_name": g.Repo, "owner": map[string]any{"login": g.owner()}},
		"sender":     map[string]any{"login": "octocat"}})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// Deliver posts a webhook delivery of event to target, signed with secret
// (X-Hub-Signature-256) as GitHub signs it, and returns the answer and its body.
func (g *FakeGitHub) Deliver(t testing.TB, target, secret, event string, payload []byte) (*http.Response, string) {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(payload)
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/fake")
	req.Header.Set("X-GitHub-Event", event)
	g.mu.Lock()
	g.delivery++
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("00000000-0000-0000-0000-%012d", g.delivery))
	g.mu.Unlock()
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// Pulls is every pull request, in the order they were opened.
func (g *FakeGitHub) Pulls() []FakePullRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]FakePullRequest, len(g.pulls))
	for i, p := range g.pulls {
		out[i] = *p
		if p.State == "open" {
			out[i].HeadSHA, _ = g.tip(p.Head)
		}
	}
	return out
}

// Requests is every API request received with the token, oldest first,
// of method and path ("" matches any).
func (g *FakeGitHub) Requests(method, path string) []FakeRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []FakeRequest
	for _, r := range g.requests {
		if (method == "" || r.Method == method) && (path == "" || r.Path == path) {
			out = append(out, r)
		}
	}
	return out
}

// BadAuth is how many API requests came without the token.
func (g *FakeGitHub) BadAuth() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.badAuth
}

func (g *FakeGitHub) record(r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var body map[string]any
	_ = json.Unmarshal(raw, &body) // a body that is not JSON is recorded as none; tests check the bodies they expect
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, FakeRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Accept: r.Header.Get("Accept"), Body: body})
}

func (g *FakeGitHub) owner() string {
	owner, _, _ := strings.Cut(g.Repo, "/")
	return owner
}

// pull is pull request number, or nil; the caller holds g.mu.
func (g *FakeGitHub) pull(number string) *FakePullRequest {
	for _, p := range g.pulls {
		if strconv.Itoa(p.Number) == number {
			return p
		}
	}
	return nil
}

// withPull serves a request about the pull request its path names, under
// g.mu; one that does not exist is 404.
func (g *FakeGitHub) withPull(h func(w http.ResponseWriter, r *http.Request, p *FakePullRequest)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		p := g.pull(r.PathValue("number"))
		if p == nil {
			writeGitHubError(w, http.StatusNotFound, "Not Found")
			return
		}
		h(w, r, p)
	}
}

// mustPull is pull request number, for a test; the caller holds g.mu.
func (g *FakeGitHub) mustPull(t testing.TB, number int) *FakePullRequest {
	t.Helper()
	p := g.pull(strconv.Itoa(number))
	if p == nil {
		t.Fatalf("fake GitHub: no pull request #%d", number)
	}
	return p
}

// pullJSON is p as GitHub's API shows it; the caller holds g.mu.
func (g *FakeGitHub) pullJSON(p *FakePullRequest) map[string]any {
	head := p.HeadSHA
	if p.State == "open" {
		head, _ = g.tip(p.Head)
	}
	base, _ := g.tip(p.Base)
	var mergeCommit any
	if p.Merged {
		mergeCommit = p.MergeCommit
	}
	return map[string]any{
		"number": p.Number, "node_id": nodeID(p.Number), "state": p.State, "title": p.Title, "body": p.Body, "draft": p.Draft,
		"merged": p.Merged, "merge_commit_sha": mergeCommit,
		"html_url": fmt.Sprintf("https://github.com/%s/pull/%d", g.Repo, p.Number),
		"url":      fmt.Sprintf("%s/repos/%s/pulls/%d", g.URL, g.Repo, p.Number),
		"head":     map[string]any{"ref": p.Head, "sha": head, "label": g.owner() + ":" + p.Head},
		"base":     map[string]any{"ref": p.Base, "sha": base, "label": g.owner() + ":" + p.Base},
	}
}

// writeDiff answers the three-dot diff of base and head, which GitHub
// gives only to a request that asks for the diff media type.
func (g *FakeGitHub) writeDiff(w http.ResponseWriter, r *http.Request, base, head string) {
	if !strings.Contains(r.Header.Get("Accept"), "diff") {
		writeGitHubError(w, http.StatusNotImplemented, "the fake answers this only as a diff (Accept: application/vnd.github.v3.diff)")
		return
	}
	diff, err := g.git("diff", "refs/heads/"+base+"...refs/heads/"+head)
	if err != nil {
		writeGitHubError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/vnd.github.v3.diff; charset=utf-8")
	_, _ = io.WriteString(w, diff) // #nosec G705 -- a diff sent as GitHub's diff type to the tests' client, never a browser
}

// tip is the commit branch points at, if the branch exists.
func (g *FakeGitHub) tip(branch string) (string, bool) {
	if branch == "" {
		return "", false
	}
	out, err := g.git("rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	return strings.TrimSpace(out), err == nil
}

// git runs git in the bare repository and returns what it printed; an
// error wraps the *exec.ExitError with git's complaint.
func (g *FakeGitHub) git(args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := gitCommand(g.Bare, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out), nil
}

// decodeGitHubJSON reads r's JSON body into v, or answers 400 as GitHub does.
func decodeGitHubJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeGitHubError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func writeGitHubJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the test's client reads it; a failed write fails that test
}

// writeGitHubError answers as GitHub refuses: a message, and for a
// validation failure the errors that say why.
func writeGitHubError(w http.ResponseWriter, status int, message string, details ...string) {
	body := map[string]any{"message": message, "documentation_url": "https://docs.github.com/rest"}
	if len(details) > 0 {
		var errs []any
		for _, d := range details {
			errs = append(errs, map[string]any{"resource": "PullRequest", "code": "custom", "message": d})
		}
		body["errors"] = errs
	}
	writeGitHubJSON(w, status, body)
}
