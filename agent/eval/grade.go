package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/internal/git"
)

// grade checks out the job's branch (main if the run pushed none) and adds
// to out.Failures every expectation the branch does not meet.
func grade(ctx context.Context, task Task, repo, branch, dir string, out *Outcome) error {
	tree := filepath.Join(dir, "graded")
	if _, err := git.Run(ctx, dir, nil, "clone", "--quiet", repo, tree); err != nil {
		return err
	}
	var changed []string
	if _, err := git.Run(ctx, tree, nil, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/"+branch); err == nil {
		if _, err := git.Run(ctx, tree, nil, "checkout", "--quiet", "-b", branch, "origin/"+branch); err != nil {
			return err
		}
		diff, err := git.Run(ctx, tree, nil, "diff", "--name-only", "--no-renames", "origin/main...HEAD")
		if err != nil {
			return err
		}
		changed = strings.Fields(diff)
	}
	files, err := git.Run(ctx, tree, nil, "ls-files")
	if err != nil {
		return err
	}
	all := strings.Fields(files)
	fail := func(format string, args ...any) { out.Failures = append(out.Failures, fmt.Sprintf(format, args...)) }
	e := task.Expect

	if want := cmp(e.Outcome, "completed"); out.Ended != want {
		fail("the run ended %s, want %s", out.Ended, want)
	}
	if len(changed) == 0 {
		fail("the branch changes nothing")
	}

	root, err := os.OpenRoot(tree)
	if err != nil {
		return err
	}
	defer root.Close()
	var changes []workspace.Change
	for _, f := range all {
		changes = append(changes, workspace.Change{Path: f, Status: "A"})
	}
	var errs []string
	for _, p := range doccheck.Check(root, changes) {
		if p.Severity != doccheck.SeverityWarning {
			errs = append(errs, p.String())
		}
	}
	out.ChecksClean = len(errs) == 0
	if !out.ChecksClean && (e.ChecksClean == nil || *e.ChecksClean) {
		if len(errs) > 3 {
			errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
		}
		fail("the checks find errors: %s", strings.Join(errs, "; "))
	}

	for name, fe := range e.Files {
		b, err := root.ReadFile(name)
		switch {
		case fe.Absent && err == nil:
			fail("%s still exists", name)
		case fe.Absent:
		case err != nil:
			fail("%s does not exist", name)
		default:
			for _, s := range fe.Contains {
				if !strings.Contains(string(b), s) {
					fail("%s does not contain %q", name, s)
				}
			}
			for _, s := range fe.NotContains {
				if strings.Contains(string(b), s) {
					fail("%s still contains %q", name, s)
				}
			}
		}
	}

	if len(e.Nav)+len(e.NotNav)+len(e.NavOrder) > 0 {
		nav, err := navigation(root)
		if err != nil {
			fail("%v", err)
		}
		for _, p := range e.Nav {
			if !slices.Contains(nav, p) {
				fail("the navigation does not list %s", p)
			}
		}
		for _, p := range e.NotNav {
			if slices.Contains(nav, p) {
				fail("the navigation still lists %s", p)
			}
		}
		last := -1
		for _, p := range e.NavOrder {
			i := slices.Index(nav, p)
			if i <= last {
				fail("the navigation does not list %s in the order %s", p, strings.Join(e.NavOrder, ", "))
				break
			}
			last = i
		}
	}

	if len(e.Only) > 0 {
		for _, f := range changed {
			if !slices.ContainsFunc(e.Only, func(g string) bool { return globMatch(g, f) }) {
				fail("%s changed, but the task allows only %s", f, strings.Join(e.Only, ", "))
			}
		}
	}

	for _, f := range all {
		if ext := path.Ext(f); ext != ".mdx" && ext != ".md" {
			continue
		}
		b, err := root.ReadFile(f)
		if err != nil {
			return err
		}
		for _, s := range e.NoText {
			if strings.Contains(string(b), s) {
				fail("%s still contains %q", f, s)
			}
		}
	}
	return nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// globMatch matches a slash path against a glob where a final /** means
// anything under the directory.
func globMatch(glob, p string) bool {
	if dir, ok := strings.CutSuffix(glob, "/**"); ok {
		return strings.HasPrefix(p, dir+"/")
	}
	ok, _ := path.Match(glob, p)
	return ok
}

// navigation lists the pages docs.json (or mint.json) names, in order.
func navigation(root *os.Root) ([]string, error) {
	var b []byte
	var err error
	for _, name := range []string{"docs.json", "mint.json"} {
		if b, err = root.ReadFile(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("neither docs.json nor mint.json can be read")
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("the navigation file is not JSON: %v", err)
	}
	var pages []string
	var walk func(v any, underPages bool)
	walk = func(v any, underPages bool) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				walk(v[k], k == "pages")
			}
		case []any:
			for _, x := range v {
				walk(x, underPages)
			}
		case string:
			if underPages {
				pages = append(pages, v)
			}
		}
	}
	walk(doc, false)
	return pages, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
