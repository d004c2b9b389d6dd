// Command refreshdata refreshes the classification lists embedded in
// package analytics (see analytics/data/README.md): it copies each upstream
// file and its licence from a local folder laid out like shared/data, or
// downloads them from GitHub at the given commits.
//
//	go run ./analytics/internal/refreshdata -src /path/to/data
//	go run ./analytics/internal/refreshdata -ai-robots REV -crawlers REV -uap REV
//
// Then update the revision table in analytics/data/README.md and run
// go test ./analytics/.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

type upstream struct {
	repo, file, dir, out, rev string
}

func main() {
	src := flag.String("src", "", "local folder laid out like shared/data (instead of downloading); \"find\": the nearest shared/data above the current folder")
	aiRobots := flag.String("ai-robots", "", "ai-robots-txt/ai.robots.txt commit")
	crawlers := flag.String("crawlers", "", "monperrus/crawler-user-agents commit")
	uap := flag.String("uap", "", "ua-parser/uap-core commit")
	dest := flag.String("dest", "analytics", "the analytics package folder")
	flag.Parse()
	if *src == "find" {
		dir, err := findSharedData()
		if err != nil {
			fmt.Fprintln(os.Stderr, "refreshdata:", err)
			os.Exit(1)
		}
		*src = dir
	}
	files := []upstream{
		{"ai-robots-txt/ai.robots.txt", "robots.json", "ai-robots-txt", "data/ai-robots-txt", *aiRobots},
		{"monperrus/crawler-user-agents", "crawler-user-agents.json", "crawler-user-agents", "data/crawler-user-agents", *crawlers},
		{"ua-parser/uap-core", "tests/test_ua.yaml", "uap-core", "testdata/uap-core", *uap},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, u := range files {
		for _, name := range []string{u.file, "LICENSE"} {
			var body []byte
			var err error
			if *src != "" {
				body, err = os.ReadFile(filepath.Join(*src, u.dir, filepath.Base(name)))
			} else if u.rev == "" {
				err = fmt.Errorf("no commit given for %s (or pass -src)", u.repo)
			} else {
				body, err = download(ctx, fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", u.repo, u.rev, name))
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(*dest, u.out, filepath.Base(name)), body, 0o644)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "refreshdata: %s %s: %v\n", u.repo, name, err)
				os.Exit(1)
			}
		}
	}
}

func download(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	return io.ReadAll(res.Body)
}

// findSharedData is the nearest shared/data folder in the current folder or
// above it: the repository's checkout keeps shared/ beside it.
func findSharedData() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "shared", "data")
		if _, err := os.Stat(filepath.Join(candidate, "ai-robots-txt", "robots.json")); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no shared/data folder above the current one; pass -src DIR")
		}
		dir = parent
	}
}
