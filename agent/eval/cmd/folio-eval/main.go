// Command folio-eval runs the agent's task suite (agent/eval) against the
// model endpoint the environment names, the way Folio itself is configured,
// and prints a table: solved, checks clean, how each run ended, calls,
// tokens, cost and time. `go tool task eval` runs it.
//
//	FOLIO_MODEL_PROVIDER  openai (any OpenAI-compatible server) or anthropic
//	FOLIO_MODEL           the model's name (required)
//	FOLIO_OPENAI_BASE_URL, FOLIO_OPENAI_API_KEY
//	FOLIO_ANTHROPIC_BASE_URL, FOLIO_ANTHROPIC_API_KEY
//	FOLIO_MODEL_PRICES    model=input/output/cached[/cache-write], dollars per million tokens
//
// With -policy solver|idle|wrong a scripted stand-in replaces the model: it
// checks the suite and its grading, and measures nothing about a model.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"time"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/agent/eval"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "folio-eval:", err)
		os.Exit(1)
	}
}

func run() error {
	dir := flag.String("suite", "agent/eval", "the suite's directory (holding tasks/ and fixtures/)")
	only := flag.String("run", "", "run only the tasks whose name matches this regular expression")
	policy := flag.String("policy", "", "a scripted stand-in instead of a model: solver, idle or wrong")
	timeout := flag.Duration("timeout", 10*time.Minute, "the most one task may take")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fsys := os.DirFS(*dir)
	tasks, err := eval.LoadTasks(fsys)
	if err != nil {
		return err
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return fmt.Errorf("-run: %w", err)
		}
		var kept []eval.Task
		for _, t := range tasks {
			if re.MatchString(t.Name) {
				kept = append(kept, t)
			}
		}
		tasks = kept
	}
	opts := eval.Options{Timeout: *timeout}
	if *policy == "" {
		if opts.Model, err = modelFromEnv(); err != nil {
			return err
		}
		fmt.Printf("%d tasks against %s (%s)\n", len(tasks), opts.Model.Name, opts.Model.BaseURL)
	} else {
		switch eval.Policy(*policy) {
		case eval.Solver, eval.Idle, eval.Wrong:
		default:
			return fmt.Errorf("-policy %q: want solver, idle or wrong", *policy)
		}
		fmt.Printf("%d tasks with the scripted %s policy (this measures the suite, not a model)\n", len(tasks), *policy)
	}
	work, err := os.MkdirTemp("", "folio-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	opts.WorkDir = work

	var rows []eval.Outcome
	for _, t := range tasks {
		var out eval.Outcome
		if *policy == "" {
			out, err = eval.Run(ctx, fsys, t, opts)
		} else {
			out, err = eval.RunScripted(ctx, fsys, t, eval.Policy(*policy), opts)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: solved=%t %s\n", t.Name, out.Solved, strings.Join(out.Failures, "; "))
		rows = append(rows, out)
	}
	eval.WriteTable(os.Stdout, rows)
	return nil
}

// modelFromEnv reads the endpoint as Folio's configuration names it.
func modelFromEnv() (eval.Model, error) {
	m := eval.Model{Provider: env("FOLIO_MODEL_PROVIDER", "openai"), Name: os.Getenv("FOLIO_MODEL")}
	switch m.Provider {
	case "openai":
		m.BaseURL, m.APIKey = env("FOLIO_OPENAI_BASE_URL", "https://api.openai.com/v1"), os.Getenv("FOLIO_OPENAI_API_KEY")
	case "anthropic":
		m.BaseURL, m.APIKey = env("FOLIO_ANTHROPIC_BASE_URL", "https://api.anthropic.com"), os.Getenv("FOLIO_ANTHROPIC_API_KEY")
	default:
		return m, fmt.Errorf("FOLIO_MODEL_PROVIDER=%q: want openai or anthropic", m.Provider)
	}
	if m.Name == "" {
		return m, fmt.Errorf("FOLIO_MODEL is not set: name the model to evaluate (or use -policy for a scripted run)")
	}
	prices, err := agent.ParsePrices(os.Getenv("FOLIO_MODEL_PRICES"))
	if err != nil {
		return m, fmt.Errorf("FOLIO_MODEL_PRICES: %w", err)
	}
	if p, ok := prices[m.Name]; ok {
		m.Price = &p
	}
	return m, nil
}

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
