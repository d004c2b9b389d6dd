//go:build ignore

// Command gosecrun runs gosec's rules and analyzers as `gosec -quiet
// -exclude-generated ./...` does with no configuration file (the same
// rules, the same handling of nosec comments, a failure for any finding or any package
// that does not load), for the test task. It is gosec's command (cmd/gosec)
// without its AI autofix, whose OpenAI, Anthropic and Gemini clients and
// gRPC were about 190 of the 200 CPU-s a cold build of gosec costs. It
// builds with lint.mod, where gosec is pinned, named by its file, as its
// build tag keeps it out of ./... and of go mod tidy, which use go.mod:
//
//	go build -modfile=lint.mod -o gosecrun internal/gosecrun/main.go
//
// gosec's own command stays in lint.mod: go tool -modfile=lint.mod gosec ./...
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"runtime"

	"github.com/securego/gosec/v2"
	"github.com/securego/gosec/v2/analyzers"
	"github.com/securego/gosec/v2/report"
	"github.com/securego/gosec/v2/rules"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run checks the packages under paths (./... when none) and prints gosec's
// text report when it fails.
func run(paths []string) int {
	if len(paths) == 0 {
		paths = []string{"./..."}
	}
	logger := log.New(io.Discard, "", 0) // -quiet
	config := gosec.NewConfig()
	config.SetGlobal(gosec.IncludeRules, "")
	config.SetGlobal(gosec.ExcludeRules, "")
	analyzer := gosec.NewAnalyzer(config, false /* tests */, true /* exclude generated */, false /* track suppressions */, runtime.GOMAXPROCS(0) /* concurrency, gosec's default */, logger)
	analyzer.LoadRules(rules.Generate(false).RulesInfo())
	analyzer.LoadAnalyzers(analyzers.Generate(false).AnalyzersInfo())

	excluded := gosec.ExcludedDirsRegExp([]string{"vendor", `\.git/`})
	var packages []string
	for _, path := range paths {
		pkgs, err := gosec.PackagePaths(path, excluded)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gosec: package paths: %v\n", err)
			return 1
		}
		packages = append(packages, pkgs...)
	}
	if len(packages) == 0 {
		fmt.Fprintln(os.Stderr, "gosec: no packages found")
		return 1
	}
	if err := analyzer.Process(nil, packages...); err != nil {
		fmt.Fprintf(os.Stderr, "gosec: %v\n", err)
		return 1
	}
	issues, metrics, errors := analyzer.Report()
	unsuppressed := 0
	for _, is := range issues {
		if len(is.Suppressions) == 0 && !is.NoSec {
			unsuppressed++
		}
	}
	metrics.NumFound = unsuppressed
	if unsuppressed == 0 && len(errors) == 0 {
		return 0
	}
	var roots []string
	for _, path := range paths {
		root, err := gosec.RootPath(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gosec: root path: %v\n", err)
			return 1
		}
		roots = append(roots, root)
	}
	if err := report.CreateReport(os.Stdout, "text", false, roots, gosec.NewReportInfo(issues, metrics, errors)); err != nil {
		fmt.Fprintf(os.Stderr, "gosec: report: %v\n", err)
	}
	return 1
}
