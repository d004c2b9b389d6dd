package main

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layoutRules are README's Layout as imports: the packages each room may
// not depend on, directly or through another package. A rule's forbidden
// path covers its subpackages.
var layoutRules = []struct {
	from      string // a `go list` pattern
	forbidden []string
}{
	// The doors reach storage only through the services' own interfaces.
	{"./handlers/...", []string{"db"}},
	// Components render view types; they import no service.
	{"./components", []string{"jobs", "agent", "analytics", "codehost", "auth"}},
}

// TestLayout fails when a package reaches what README's Layout keeps from
// it, naming the import chain that does.
func TestLayout(t *testing.T) {
	const module = "github.com/folio-docs/folio/"
	for _, rule := range layoutRules {
		roots := goList(t, rule.from)
		imports := map[string][]string{}
		for _, line := range goList(t, "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", rule.from) {
			pkg, deps, _ := strings.Cut(line, " ")
			imports[pkg] = strings.Fields(deps)
		}
		if len(roots) == 0 || len(imports) <= len(roots) {
			t.Fatalf("go list %s found %d packages and %d dependencies: not the tree this test checks", rule.from, len(roots), len(imports))
		}
		for _, root := range roots {
			// Breadth first, so each chain reported is a shortest one.
			via := map[string]string{root: ""}
			queue := []string{root}
			for len(queue) > 0 {
				pkg := queue[0]
				queue = queue[1:]
				for _, f := range rule.forbidden {
					if pkg == module+f || strings.HasPrefix(pkg, module+f+"/") {
						chain := []string{}
						for p := pkg; p != ""; p = via[p] {
							chain = append(chain, strings.TrimPrefix(p, module))
						}
						slices.Reverse(chain)
						t.Errorf("%s depends on %s, which README's Layout keeps from it: %s", chain[0], f, strings.Join(chain, " → "))
					}
				}
				for _, dep := range imports[pkg] {
					if _, seen := via[dep]; !seen && strings.HasPrefix(dep, module) {
						via[dep] = pkg
						queue = append(queue, dep)
					}
				}
			}
		}
	}
}

// goList runs `go list` in the module's root and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' })
}
