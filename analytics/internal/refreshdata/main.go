// Command refreshdata refreshes the classification lists embedded in
// package analytics and the corpora its tests measure on (see
// analytics/data/README.md): it copies each upstream file and its licence
// from a local folder laid out like shared/data, or fetches them: the
// GitHub lists at the given commits, the npm packages (through the npm
// client, `npm pack`) at the given versions.
//
//	go run ./analytics/internal/refreshdata -src /path/to/data
//	go run ./analytics/internal/refreshdata -ai-robots REV -crawlers REV -uap REV \
//	    -referrers REV -device-detector VERSION -isbot VERSION -user-agents VERSION
//
// With -src, a source the folder does not have is left as it is (and
// said so), and the GitHub commits are not needed; the npm versions, when
// given, are fetched either way. Then update the revision table in
// analytics/data/README.md and run go test ./analytics/.
package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// upstream is data in a GitHub repository: files (the first is the data
// a -src folder must have), each fetched at commit rev.
type upstream struct {
	repo     string
	files    []string
	dir, out string
	rev      string
}

// npmSource is data shipped in an npm package: file is its path in the
// package, convert turns it into what Folio keeps (name, in out).
type npmSource struct {
	pkg, version, file, license string
	dir, out, name              string
	convert                     func([]byte) ([]byte, error)
}

func main() {
	src := flag.String("src", "", "local folder laid out like shared/data (instead of downloading); \"find\": the nearest shared/data above the current folder")
	aiRobots := flag.String("ai-robots", "", "ai-robots-txt/ai.robots.txt commit")
	crawlers := flag.String("crawlers", "", "monperrus/crawler-user-agents commit")
	uap := flag.String("uap", "", "ua-parser/uap-core commit")
	deviceDetector := flag.String("device-detector", "", "npm node-device-detector version (matomo device-detector's regexes/bots.yml, as JSON)")
	isbot := flag.String("isbot", "", "npm isbot version (its src/patterns.json)")
	userAgents := flag.String("user-agents", "", "npm user-agents version (a test corpus of real browsers with weights)")
	referrers := flag.String("referrers", "", "matomo-org/searchengine-and-social-list commit (AI assistants, social networks, search engines)")
	dest := flag.String("dest", "analytics", "the analytics package folder")
	flag.Parse()
	if *src == "find" {
		dir, err := findSharedData()
		if err != nil {
			fail(err)
		}
		*src = dir
	}
	files := []upstream{
		{"ai-robots-txt/ai.robots.txt", []string{"robots.json", "LICENSE"}, "ai-robots-txt", "data/ai-robots-txt", *aiRobots},
		{"monperrus/crawler-user-agents", []string{"crawler-user-agents.json", "LICENSE"}, "crawler-user-agents", "data/crawler-user-agents", *crawlers},
		{"ua-parser/uap-core", []string{"tests/test_ua.yaml", "LICENSE"}, "uap-core", "testdata/uap-core", *uap},
		// No licence file: composer.json declares the Unlicense.
		{"matomo-org/searchengine-and-social-list", []string{"AIAssistants.yml", "SearchEngines.yml", "Socials.yml", "composer.json"},
			"searchengine-and-social-list", "data/searchengine-and-social-list", *referrers},
	}
	packages := []npmSource{
		{pkg: "node-device-detector", version: *deviceDetector, file: "package/regexes/bots.js",
			dir: "device-detector", out: "data/device-detector", name: "bots.json", convert: jsModuleJSON("module.exports =")},
		{pkg: "isbot", version: *isbot, file: "package/index.js", license: "package/LICENSE",
			dir: "isbot", out: "data/isbot", name: "patterns.json", convert: jsModuleJSON("var patterns_default =")},
		{pkg: "user-agents", version: *userAgents, file: "package/dist/user-agents.json", license: "package/LICENSE",
			dir: "user-agents", out: "testdata/user-agents", name: "user-agents.tsv.gz", convert: weightedUserAgents},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, u := range files {
		if *src != "" {
			if _, err := os.Stat(filepath.Join(*src, u.dir, filepath.Base(u.files[0]))); errors.Is(err, fs.ErrNotExist) {
				fmt.Printf("refreshdata: %s has no %s/%s; %s kept as it is\n", *src, u.dir, filepath.Base(u.files[0]), u.out)
				continue
			}
		}
		for _, name := range u.files {
			var body []byte
			var err error
			switch {
			case *src != "":
				body, err = os.ReadFile(filepath.Join(*src, u.dir, filepath.Base(name)))
			case u.rev == "":
				err = fmt.Errorf("no commit given for %s (or pass -src)", u.repo)
			default:
				body, err = download(ctx, fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", u.repo, u.rev, name))
			}
			if err == nil {
				// #nosec G306 G703 -- a data file of the repository, committed and read by everyone; the name is one of this tool's own
				err = os.WriteFile(filepath.Join(*dest, u.out, filepath.Base(name)), body, 0o644)
			}
			if err != nil {
				fail(fmt.Errorf("%s %s: %w", u.repo, name, err))
			}
		}
	}
	for _, p := range packages {
		files, err := p.fetch(ctx, *src)
		if err == nil && files == nil {
			fmt.Printf("refreshdata: no -%s version given and no %s folder in -src; %s kept as it is\n", p.dir, p.dir, p.out)
			continue
		}
		for name, body := range files {
			if err != nil {
				break
			}
			err = os.WriteFile(filepath.Join(*dest, p.out, name), body, 0o644) // #nosec G306 -- a data file of the repository, committed and read by everyone
		}
		if err != nil {
			fail(fmt.Errorf("%s: %w", p.pkg, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "refreshdata:", err)
	os.Exit(1)
}

// fetch returns the files to write (name → content): from the npm package
// at p.version when one is given, else from src's folder of this source,
// else nil.
func (p npmSource) fetch(ctx context.Context, src string) (map[string][]byte, error) {
	if p.version == "" {
		if src == "" {
			return nil, nil
		}
		out := map[string][]byte{}
		for _, name := range []string{p.name, "LICENSE"} {
			body, err := os.ReadFile(filepath.Join(src, p.dir, name)) // #nosec G304 -- the folder the developer running this tool named with -src
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[name] = body
		}
		if out[p.name] == nil {
			return nil, nil
		}
		return out, nil
	}
	tmp, err := os.MkdirTemp("", "refreshdata")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", p.pkg+"@"+p.version) // #nosec G204 -- npm, no shell; a package of this tool's list at the version the developer gave
	cmd.Dir = tmp
	cmd.Stderr = os.Stderr
	name, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm pack %s@%s: %w", p.pkg, p.version, err)
	}
	tgz, err := os.ReadFile(filepath.Join(tmp, strings.TrimSpace(string(name)))) // #nosec G304 -- the file npm pack just wrote in our temporary folder
	if err != nil {
		return nil, err
	}
	want := []string{p.file}
	if p.license != "" {
		want = append(want, p.license)
	}
	got, err := untar(tgz, want)
	if err != nil {
		return nil, err
	}
	body, err := p.convert(got[p.file])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.file, err)
	}
	out := map[string][]byte{p.name: body}
	if p.license != "" {
		out["LICENSE"] = got[p.license]
	}
	return out, nil
}

// untar reads the named files out of a gzipped tar.
func untar(tgz []byte, names []string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if slices.Contains(names, h.Name) {
			if out[h.Name], err = io.ReadAll(tr); err != nil {
				return nil, err
			}
		}
	}
	for _, n := range names {
		if out[n] == nil {
			return nil, fmt.Errorf("the package has no %s", n)
		}
	}
	return out, nil
}

// jsModuleJSON takes the JSON value a JavaScript file assigns after
// prefix (up to the statement's closing ";"), checks that it is JSON, and
// returns it as the file has it.
func jsModuleJSON(prefix string) func([]byte) ([]byte, error) {
	return func(js []byte) ([]byte, error) {
		_, rest, ok := bytes.Cut(js, []byte(prefix))
		if !ok {
			return nil, fmt.Errorf("no %q in it", prefix)
		}
		end := bytes.Index(rest, []byte("\n];"))
		if end < 0 {
			return nil, fmt.Errorf("no end of the array after %q", prefix)
		}
		value := bytes.TrimSpace(rest[:end+2])
		var v []any
		if err := json.Unmarshal(value, &v); err != nil {
			return nil, fmt.Errorf("the value after %q is not a JSON array: %w", prefix, err)
		}
		return append(value, '\n'), nil
	}
}

// weightedUserAgents turns the user-agents package's data (one entry per
// browser fingerprint seen, with its share of traffic) into a gzipped
// "user agent <TAB> weight" list, one line per distinct user agent with
// its entries' weights added up, heaviest first.
func weightedUserAgents(raw []byte) ([]byte, error) {
	var entries []struct {
		UserAgent string  `json:"userAgent"`
		Weight    float64 `json:"weight"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, err
	}
	weights := map[string]float64{}
	for _, e := range entries {
		if strings.ContainsAny(e.UserAgent, "\t\n") {
			return nil, fmt.Errorf("user agent %q has a tab or newline", e.UserAgent)
		}
		weights[e.UserAgent] += e.Weight
	}
	uas := make([]string, 0, len(weights))
	for ua := range weights {
		uas = append(uas, ua)
	}
	slices.SortFunc(uas, func(a, b string) int {
		return cmp.Or(cmp.Compare(weights[b], weights[a]), strings.Compare(a, b))
	})
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, ua := range uas {
		fmt.Fprintf(zw, "%s\t%g\n", ua, weights[ua])
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
