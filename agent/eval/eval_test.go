package eval

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestScriptedPolicies runs the whole suite three ways. The scripted
// solver must solve every task, and a run that changes nothing, or a
// task's plausible wrong edit, must fail it: that is what shows the grading
// can tell work done from work not done. No model is measured here.
func TestScriptedPolicies(t *testing.T) {
	fsys := os.DirFS(".")
	tasks, err := LoadTasks(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 30 && !testing.Short() {
		t.Errorf("the suite has %d tasks, want at least 30", len(tasks))
	}
	kinds := map[string]int{}
	for _, task := range tasks {
		kinds[task.Kind]++
	}
	t.Logf("%d tasks by kind: %v", len(tasks), kinds)
	var mu sync.Mutex
	var rows []Outcome
	t.Cleanup(func() {
		var b strings.Builder
		slices.SortFunc(rows, func(a, b Outcome) int { return strings.Compare(a.Task, b.Task) })
		WriteTable(&b, rows)
		t.Logf("the scripted solver:\n%s", b.String())
	})
	for _, task := range tasks {
		t.Run(task.Name, func(t *testing.T) {
			t.Parallel() // most of a run is git in other processes
			opts := Options{WorkDir: t.TempDir()}
			solved, err := RunScripted(context.Background(), fsys, task, Solver, opts)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			rows = append(rows, solved)
			mu.Unlock()
			if !solved.Solved {
				t.Errorf("the scripted solver did not solve it: %s", strings.Join(solved.Failures, "; "))
			}
			// A task with a wrong edit of its own is checked with it; any
			// other with a run that changes nothing.
			policy := Idle
			if task.Wrong != nil {
				policy = Wrong
			}
			{
				wrong, err := RunScripted(context.Background(), fsys, task, policy, opts)
				if err != nil {
					t.Fatal(err)
				}
				if wrong.Solved {
					t.Errorf("the %s policy's run was graded solved", policy)
				} else {
					t.Logf("the %s policy fails: %s", policy, strings.Join(wrong.Failures, "; "))
				}
			}
		})
	}
}
