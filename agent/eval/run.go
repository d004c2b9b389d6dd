package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/codehost/local"
	"github.com/folio-docs/folio/internal/git"
	"github.com/folio-docs/folio/model"
)

// Model is the endpoint a suite's runs talk to, as Folio's own
// configuration names it (FOLIO_MODEL_PROVIDER, FOLIO_OPENAI_BASE_URL …).
type Model struct {
	Provider string // "openai" (or any OpenAI-compatible server) or "anthropic"
	BaseURL  string
	APIKey   string
	Name     string
	// Price is what the model costs, as FOLIO_MODEL_PRICES gives it; nil
	// when unknown, and no cost is reported.
	Price *agent.Price
}

// Options tune a suite run.
type Options struct {
	Model   Model
	WorkDir string        // repositories and workspaces go here
	Timeout time.Duration // per task; 10 minutes if 0
	Log     *slog.Logger
	// Agent adjusts the agent's configuration before each run (limits).
	Agent func(*agent.Config)
}

// Outcome is how one task went.
type Outcome struct {
	Task, Kind string
	Solved     bool
	// Checks says whether Folio's checks over the whole branch found no
	// error; Failures lists every unmet expectation, in words.
	ChecksClean bool
	Failures    []string
	Ended       string // "completed", "draft" or "failed: <code>"
	Usage       Usage
	Wall        time.Duration
}

// Usage is what the model calls of a task cost, as the endpoint reported.
type Usage struct {
	Calls                 int
	Input, Output         int64 // input counts cache reads and writes too
	CacheRead, CacheWrite int64
	LargestRequest        int64 // input tokens of the largest request
	Cost                  float64
	CostKnown             bool
}

// Run runs task against opts.Model and grades it. A task that cannot be set
// up is an error; a task the agent fails is an Outcome that is not solved.
func Run(ctx context.Context, fsys fs.FS, task Task, opts Options) (Outcome, error) {
	return run(ctx, fsys, task, opts, nil)
}

// run is Run; script, if set, is told each turn's index before it starts
// (the scripted policies reply per turn).
func run(ctx context.Context, fsys fs.FS, task Task, opts Options, script func(turn int)) (Outcome, error) {
	out := Outcome{Task: task.Name, Kind: task.Kind}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	dir, err := os.MkdirTemp(opts.WorkDir, task.Name+"-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	repo, err := setUp(ctx, fsys, task, dir)
	if err != nil {
		return out, fmt.Errorf("%s: set up: %w", task.Name, err)
	}
	meter, err := newMeter(opts.Model)
	if err != nil {
		return out, err
	}
	defer meter.Close()

	hosts := &recordingHosts{repo: repo}
	cfg := agent.Config{
		Provider: opts.Model.Provider, Hosts: hosts, DataDir: filepath.Join(dir, "data"), Log: opts.Log,
		OpenAIBaseURL: meter.URL(), OpenAIAPIKey: opts.Model.APIKey,
		AnthropicBaseURL: meter.URL(), AnthropicAPIKey: opts.Model.APIKey,
	}
	if opts.Agent != nil {
		opts.Agent(&cfg)
	}
	a, err := agent.New(cfg)
	if err != nil {
		return out, err
	}

	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	start := time.Now()
	jobID := "eval-" + task.Name
	var history []agent.Message
	record := func(_ context.Context, m agent.Message) error {
		history = append(history, m)
		return nil
	}
	prLink := ""
	out.Ended = "completed"
	for i, turn := range task.Turns {
		if script != nil {
			script(i)
		}
		history = append(history, agent.Message{Role: agent.RoleUser, Content: turn.Prompt, CreatedAt: time.Now()})
		res, err := a.Run(ctx, agent.Run{
			JobID:   jobID,
			Project: model.Project{ID: "eval", Name: task.Name, Repository: repo, Ref: "main"},
			Model:   opts.Model.Name,
			Branch:  "folio/" + jobID,
			PRLink:  prLink,
			History: history,
		}, record)
		if err != nil {
			var ae *agent.Error
			code := "error"
			if errors.As(err, &ae) {
				code = ae.Code
			}
			out.Ended = "failed: " + code
			out.Failures = append(out.Failures, fmt.Sprintf("turn %d failed: %v", i+1, err))
			break
		}
		prLink = res.PRLink
	}
	out.Wall = time.Since(start)
	out.Usage = meter.Usage()
	if hosts.draft() && out.Ended == "completed" {
		out.Ended = "draft"
	}
	if err := grade(ctx, task, repo, "folio/"+jobID, dir, &out); err != nil {
		return out, fmt.Errorf("%s: grade: %w", task.Name, err)
	}
	out.Solved = len(out.Failures) == 0
	return out, nil
}

// setUp makes a bare repository whose main holds the task's fixture with
// its setup applied, and returns its path.
func setUp(ctx context.Context, fsys fs.FS, task Task, dir string) (string, error) {
	work := filepath.Join(dir, "work")
	root := path.Join("fixtures", task.Fixture)
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := p[len(root)+1:]
		if _, replaced := task.Setup[rel]; replaced {
			return nil
		}
		return writeFile(work, rel, b)
	})
	if err != nil {
		return "", err
	}
	for rel, content := range task.Setup {
		if content == "" {
			continue
		}
		if err := writeFile(work, rel, []byte(content)); err != nil {
			return "", err
		}
	}
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"add", "--all"},
		{"commit", "--quiet", "-m", "The docs as the task finds them"},
	} {
		if _, err := git.Run(ctx, work, nil, args...); err != nil {
			return "", err
		}
	}
	bare := filepath.Join(dir, "docs.git")
	if _, err := git.Run(ctx, dir, nil, "clone", "--quiet", "--bare", work, bare); err != nil {
		return "", err
	}
	return bare, nil
}

func writeFile(dir, rel string, b []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

// recordingHosts opens every project on the one local repository, and
// keeps the pull requests the agent publishes.
type recordingHosts struct {
	repo string
	host *recordingHost
}

func (h *recordingHosts) OpenProject(projectID, _ string) (codehost.Host, error) {
	if h.host == nil {
		h.host = &recordingHost{Host: local.New(h.repo, "http://folio.eval")}
	}
	return h.host, nil
}

func (h *recordingHosts) draft() bool {
	return h.host != nil && len(h.host.published) > 0 && h.host.published[len(h.host.published)-1].Draft
}

type recordingHost struct {
	*local.Host
	published []codehost.PullRequest
}

func (h *recordingHost) Publish(ctx context.Context, pr codehost.PullRequest) (string, error) {
	h.published = append(h.published, pr)
	return h.Host.Publish(ctx, pr)
}
