package analytics

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func newTestClassifier(t testing.TB) *Classifier {
	t.Helper()
	c, err := NewClassifier()
	if err != nil {
		t.Fatalf("NewClassifier: %v", err)
	}
	return c
}

// One case per class of the contract's table, on real user agents.
func TestClassifyRealUserAgents(t *testing.T) {
	c := newTestClassifier(t)
	cases := []struct {
		ua, path, accept string
		want             Class
	}{
		// AI agents acting for a person.
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", want: AI},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", want: AI},
		{ua: "claude-code/1.0.83 (external, cli)", want: AI},
		{ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/1.4.5 Chrome/132.0.6834.210 Electron/34.5.8 Safari/537.36", want: AI},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", want: AI},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)", want: AI},
		{ua: "DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)", want: AI},
		{ua: "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36 (compatible; Google-Agent)", want: AI},
		{ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/127.0.0.0 Safari/537.36 Devin/1.0", want: AI},
		{ua: "GitHub-Copilot/1.0", want: AI},
		// Markdown read by a client that is not a known crawler.
		{ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", path: "/docs/intro.md", want: AI},
		{ua: "curl/8.5.0", path: "/llms.txt", want: AI},
		{ua: "python-httpx/0.27.0", path: "/llms-full.txt", want: AI},
		{ua: "node", path: "/docs/start", accept: "text/markdown, text/html;q=0.5", want: AI},
		{ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", path: "/llms.txt", want: Bot},
		// AI search indexers.
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot", want: AISearch},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +claude-searchbot@anthropic.com)", want: AISearch},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", want: AISearch},
		// AI training crawlers.
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", want: AITraining},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", want: AITraining},
		{ua: "CCBot/2.0 (https://commoncrawl.org/faq/)", want: AITraining},
		{ua: "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)", want: AITraining},
		{ua: "Mozilla/5.0 (compatible; Google-Extended)", want: AITraining},
		{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 8_3 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12F70 Safari/600.1.4 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)", want: AITraining},
		{ua: "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", want: AITraining},
		// Search engines, SEO, monitors, scripts.
		{ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", want: Bot},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", want: Bot},
		{ua: "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", want: Bot},
		{ua: "curl/8.5.0", want: Bot},
		{ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.109 Safari/537.36", want: Bot},
		{ua: "", want: Bot},
		// Browsers.
		{ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", want: Human},
		{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", want: Human},
		{ua: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", want: Human},
		{ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0", path: "/docs/intro", accept: "text/html,application/xhtml+xml,*/*;q=0.8", want: Human},
	}
	for _, tc := range cases {
		got := c.Classify(Input{UserAgent: tc.ua, Path: tc.path, Accept: tc.accept})
		if got != tc.want {
			t.Errorf("Classify(%q, path %q, accept %q) = %s, want %s", tc.ua, tc.path, tc.accept, got, tc.want)
		}
	}
}

// Every real user agent crawler-user-agents lists as an example is a crawler.
func TestClassifyCrawlerInstancesAreNotHuman(t *testing.T) {
	c := newTestClassifier(t)
	raw, err := os.ReadFile("data/crawler-user-agents/crawler-user-agents.json")
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Pattern   string   `json:"pattern"`
		Instances []string `json:"instances"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		for _, ua := range e.Instances {
			n++
			if got := c.Classify(Input{UserAgent: ua, Path: "/docs/"}); got == Human {
				t.Errorf("instance of %q classified human: %q", e.Pattern, ua)
			}
		}
	}
	if n < 2000 {
		t.Fatalf("read %d instances, want the list's ~2,100", n)
	}
	t.Logf("%d crawler instances, none human", n)
}

// At least 99.5% of uap-core's ordinary browser strings are human.
func TestClassifyBrowsersAreHuman(t *testing.T) {
	c := newTestClassifier(t)
	uas := ordinaryBrowsers(t)
	if len(uas) < 400 {
		t.Fatalf("found %d ordinary browser strings, want hundreds", len(uas))
	}
	human := 0
	for _, ua := range uas {
		if c.Classify(Input{UserAgent: ua, Path: "/docs/"}) == Human {
			human++
		} else {
			t.Logf("not human: %q (%s)", ua, c.Classify(Input{UserAgent: ua, Path: "/docs/"}))
		}
	}
	share := float64(human) / float64(len(uas))
	t.Logf("uap-core ordinary browsers classified human: %d of %d = %.2f%%", human, len(uas), 100*share)
	if share < 0.995 {
		t.Errorf("%.2f%% of ordinary browsers are human, want at least 99.5%%", 100*share)
	}
}

// ordinaryBrowsers reads uap-core's test cases and keeps the strings of
// browsers: those that start like a browser's and whose family and text name
// no bot, crawler, spider, library or app (uap-core mixes all of those in).
func ordinaryBrowsers(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/uap-core/test_ua.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	notBrowser := []string{"bot", "crawl", "spider", "slurp", "fetch", "scan", "python", "java", "curl", "wget", "http", "headless", "preview", "monitor", "validator", "check", "sdk",
		// uap-core families of synthetic monitors, scrapers and automation
		// that dress as browsers
		"catchpoint", "ruxit synthetic", "phantomjs", "inspectiontool", "datanyze", "zyborg", "httrack"}
	var ua string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "- user_agent_string: "); ok {
			ua = yamlScalar(v)
			continue
		}
		v, ok := strings.CutPrefix(line, "family: ")
		if !ok || ua == "" {
			continue
		}
		family := yamlScalar(v)
		text := strings.ToLower(ua + " " + family)
		ordinary := strings.HasPrefix(ua, "Mozilla/") || strings.HasPrefix(ua, "Opera/")
		for _, w := range notBrowser {
			if strings.Contains(text, w) {
				ordinary = false
			}
		}
		if ordinary {
			out = append(out, ua)
		}
		ua = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func yamlScalar(v string) string {
	switch {
	case strings.HasPrefix(v, "'"):
		return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'"), "''", "'")
	case strings.HasPrefix(v, `"`):
		s, err := strconv.Unquote(v)
		if err == nil {
			return s
		}
	}
	return v
}

func BenchmarkClassify(b *testing.B) {
	c := newTestClassifier(b)
	ua := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
	for b.Loop() {
		c.Classify(Input{UserAgent: ua, Path: "/docs/intro"})
	}
}
