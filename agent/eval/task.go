// Package eval measures the agent on real docs work: tasks over fixture
// repositories, each graded by Folio's own checks, by assertions on the
// branch's files and by the run's outcome, with the calls, tokens and time
// each took. `go tool task eval` runs the suite against a model endpoint;
// the package's tests run it with scripted policies, which shows the
// grading works (a scripted solver passes, a scripted wrong edit fails)
// and claims no quality number.
//
// A task is one YAML file in tasks/ (see tasks/README.md): the fixture it
// starts from, files it adds or changes first, the prompts of each turn,
// the solution a scripted solver replays, and what the result must be.
package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Task is one docs job to do and how to grade it.
type Task struct {
	Name    string `yaml:"-"` // the file's name without .yaml
	Kind    string `yaml:"kind"`
	Fixture string `yaml:"fixture"` // a directory under fixtures/
	// Setup is written over the fixture before the run (a path with empty
	// content is deleted), so a task can start from a broken site.
	Setup map[string]string `yaml:"setup"`
	Turns []Turn            `yaml:"turns"`
	// Wrong, if set, is a plausible but wrong solution: the scripted check
	// of the grading runs it and expects the task to fail.
	Wrong  [][]Call `yaml:"wrong"`
	Expect Expect   `yaml:"expect"`
}

// Turn is one prompt of the job (the first creates it, the others follow
// up) and the scripted solver's replies to it.
type Turn struct {
	Prompt string `yaml:"prompt"`
	// Solution is the scripted solver's replies in order: each is one model
	// reply holding one or more tool calls. A final "Done." follows.
	Solution [][]Call `yaml:"solution"`
}

// Call is one tool call: the tool's name and its arguments.
type Call struct {
	Tool string
	Args map[string]any
}

// UnmarshalYAML reads a call written as {tool_name: {arg: value}}.
func (c *Call) UnmarshalYAML(n *yaml.Node) error {
	var m map[string]map[string]any
	if err := n.Decode(&m); err != nil {
		return err
	}
	if len(m) != 1 {
		return fmt.Errorf("line %d: a call is one tool name with its arguments", n.Line)
	}
	for k, v := range m {
		c.Tool, c.Args = k, v
	}
	return nil
}

// arguments are the call's arguments as the model sends them: a JSON object.
func (c Call) arguments() json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(c.Args) // map[string]any decoded from YAML: always encodable
	return bytes.TrimSpace(b.Bytes())
}

// Expect is what a solved task leaves on the job's branch.
type Expect struct {
	// Outcome is how the last turn must end: "completed" (the default) or
	// "draft" (a pull request opened as a draft at a limit).
	Outcome string `yaml:"outcome"`
	// ChecksClean asks Folio's own checks, run over the whole branch, to
	// find no error. It is on unless set to false.
	ChecksClean *bool `yaml:"checks_clean"`
	// Files maps a path on the branch to what it must hold.
	Files map[string]FileExpect `yaml:"files"`
	// Nav lists pages the navigation must name, NotNav pages it must not.
	Nav    []string `yaml:"nav"`
	NotNav []string `yaml:"not_nav"`
	// NavOrder lists pages that must appear in the navigation in this order.
	NavOrder []string `yaml:"nav_order"`
	// Only, if set, are the globs the branch may change; anything else
	// changed fails the task.
	Only []string `yaml:"only"`
	// NoText are strings no page on the branch may contain (an old link, a
	// removed flag).
	NoText []string `yaml:"no_text"`
}

// FileExpect is what one file must (or must not) hold.
type FileExpect struct {
	Absent      bool     `yaml:"absent"`
	Contains    []string `yaml:"contains"`
	NotContains []string `yaml:"not_contains"`
}

// LoadTasks reads every tasks/*.yaml of fsys, sorted by name, and checks
// each names a fixture fsys holds.
func LoadTasks(fsys fs.FS) ([]Task, error) {
	names, err := fs.Glob(fsys, "tasks/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var tasks []Task
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var t Task
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		t.Name = strings.TrimSuffix(path.Base(name), ".yaml")
		if err := t.valid(fsys); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no tasks/*.yaml found")
	}
	return tasks, nil
}

func (t Task) valid(fsys fs.FS) error {
	if t.Kind == "" {
		return fmt.Errorf("kind is required")
	}
	if fi, err := fs.Stat(fsys, path.Join("fixtures", t.Fixture)); err != nil || !fi.IsDir() || t.Fixture == "" {
		return fmt.Errorf("fixture %q is not a directory under fixtures/", t.Fixture)
	}
	if len(t.Turns) == 0 {
		return fmt.Errorf("a task has at least one turn")
	}
	for i, turn := range t.Turns {
		if strings.TrimSpace(turn.Prompt) == "" {
			return fmt.Errorf("turn %d has no prompt", i+1)
		}
	}
	switch t.Expect.Outcome {
	case "", "completed", "draft":
	default:
		return fmt.Errorf("expect.outcome %q: want completed or draft", t.Expect.Outcome)
	}
	return nil
}
