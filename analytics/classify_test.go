package analytics

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-docs/folio/model"
	"go.yaml.in/yaml/v3"
)

// sharedClassifier is the classifier of the embedded lists, built once for
// the package's tests: a build costs about 0.45 s of CPU under -race, and a
// Classifier is not changed once built (a test that changes one, as
// dropExtraAgents does, builds its own with NewClassifierFrom).
var sharedClassifier = sync.OnceValues(NewClassifier)

func newTestClassifier(t testing.TB) *Classifier {
	t.Helper()
	c, err := sharedClassifier()
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

// The goals of classification (issue 24), measured per corpus over whole
// public corpora: browsers not counted human at most 0.05 %, known bots
// counted human at most 5 %, AI agents acting for a person counted ai at
// least 85 %. Some corpora are the examples the lists were built from;
// the others are held out: no list was built from them and no rule was
// tuned on them (BENCHMARKS.md names which is which). Bots are measured
// twice: by the whole classifier and by one built without the list whose
// examples they are, which is what the rules do for bots no list names
// yet. It prints every rate (go test -v -run ClassificationRates) and
// fails when a goal is missed.
func TestClassificationRates(t *testing.T) {
	lists, err := EmbeddedLists()
	if err != nil {
		t.Fatal(err)
	}
	full := newTestClassifier(t)
	without := func(drop func(*Lists)) *Classifier {
		l := lists
		drop(&l)
		c, err := NewClassifierFrom(l)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	view := func(c *Classifier, ua string) Class { return c.Classify(Input{UserAgent: ua, Path: "/docs/"}) }

	t.Run("browsers are human", func(t *testing.T) {
		userAgents, weights := npmUserAgents(t)
		for _, corpus := range []struct {
			name    string
			uas     []string
			weights []float64
			min     int
		}{
			{"uap-core test_ua.yaml browsers (tuned on)", ordinaryBrowsers(t), nil, 450},
			{"npm user-agents, real browsers with weights (held out)", userAgents, weights, 900},
		} {
			if len(corpus.uas) < corpus.min {
				t.Fatalf("read %d of %s, want at least %d", len(corpus.uas), corpus.name, corpus.min)
			}
			var missed []string
			var w, wMissed float64
			for i, ua := range corpus.uas {
				got := view(full, ua)
				if corpus.weights != nil {
					w += corpus.weights[i]
					if got != Human {
						wMissed += corpus.weights[i]
					}
				}
				if got != Human {
					missed = append(missed, fmt.Sprintf("%s: %q", got, ua))
				}
			}
			rate := 100 * float64(len(missed)) / float64(len(corpus.uas))
			line := fmt.Sprintf("classification: %s not human: %d of %d = %.3f%%", corpus.name, len(missed), len(corpus.uas), rate)
			if corpus.weights != nil {
				line += fmt.Sprintf(", weighted %.4f%%", 100*wMissed/w)
			}
			fmt.Println(line + " (goal at most 0.05%)")
			if rate > 0.05 || corpus.weights != nil && 100*wMissed/w > 0.05 {
				t.Errorf("%s: %.3f%% of browsers are not human, want at most 0.05%%:\n%s", corpus.name, rate, strings.Join(missed, "\n"))
			}
		}
	})

	t.Run("bots are not human", func(t *testing.T) {
		var instances []string
		for _, e := range crawlerEntries(t) {
			instances = append(instances, e.Instances...)
		}
		noCrawlers := without(func(l *Lists) { l.Crawlers = nil })
		noIsbot := without(func(l *Lists) { l.Isbot = nil })
		isbotCrawlers := isbotExamples(t)
		noDeviceDetector := without(func(l *Lists) { l.DeviceDetector = nil })
		ddBots := deviceDetectorExamples(t)
		for _, corpus := range []struct {
			name string
			c    *Classifier
			uas  []string
			min  int
		}{
			{"crawler-user-agents instances (its patterns built from them)", full, instances, 2000},
			{"crawler-user-agents instances, classifier without crawler-user-agents (held out)", noCrawlers, instances, 2000},
			{"isbot's crawler examples (its patterns built from them)", full, isbotCrawlers, 500},
			{"device-detector's bot examples (its patterns built from them)", full, ddBots, 1000},
			{"device-detector's bot examples, classifier without device-detector (held out)", noDeviceDetector, ddBots, 1000},
			// Held out at first (41 of 554 human), then tuned on.
			{"isbot's crawler examples, classifier without isbot (tuned on)", noIsbot, isbotCrawlers, 500},
			// uap-core's own bots, crawlers and scripts: no list was
			// built from them; issue 10 tuned the generic words on them.
			{"uap-core test_ua.yaml bots and scripts (tuned on)", full, uapCoreBots(t), 300},
			{"the issue's examples (tuned on)", full, issueBots, len(issueBots)},
		} {
			if len(corpus.uas) < corpus.min {
				t.Fatalf("read %d %s, want at least %d", len(corpus.uas), corpus.name, corpus.min)
			}
			var human []string
			for _, ua := range corpus.uas {
				if view(corpus.c, ua) == Human {
					human = append(human, fmt.Sprintf("%q", ua))
				}
			}
			rate := 100 * float64(len(human)) / float64(len(corpus.uas))
			fmt.Printf("classification: %s counted human: %d of %d = %.2f%% (goal at most 5%%)\n", corpus.name, len(human), len(corpus.uas), rate)
			if rate > 5 {
				t.Errorf("%.2f%% of %s are human, want at most 5%%:\n%s", rate, corpus.name, strings.Join(human, "\n"))
			} else if len(human) > 0 {
				t.Logf("%s counted human:\n%s", corpus.name, strings.Join(human, "\n"))
			}
		}
	})

	t.Run("AI agents are ai", func(t *testing.T) {
		var robots map[string]struct {
			Function string `json:"function"`
		}
		if err := json.Unmarshal(lists.Robots, &robots); err != nil {
			t.Fatal(err)
		}
		// The contract's table, then every agent ai.robots.txt files as
		// acting for a user (assistants, agents, coding agents).
		agents := []string{"ChatGPT-User", "Claude-User", "claude-code", "Cursor", "Perplexity-User", "MistralAI-User", "DuckAssistBot", "Google-Agent", "Devin", "Copilot",
			"GitHubCopilotChat", "Google-GeminiNotebook", "ChatGPT-Browser"}
		contract := len(agents)
		for token, r := range robots {
			if userAgentType(r.Function) {
				agents = append(agents, token)
			}
		}
		slices.Sort(agents[contract:])
		if len(agents) < contract+40 {
			t.Fatalf("found %d user-type agents in ai.robots.txt, want its ~50", len(agents)-contract)
		}
		forms := func(a string) []string {
			return []string{
				a + "/1.0",
				"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; " + a + "/1.0; +https://example.com/bot)",
				"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36 " + a + "/2.1",
			}
		}
		// Without ai.robots.txt and Folio's own names: what the other
		// lists and the rules make of agents they were not built from.
		heldOut := without(func(l *Lists) { l.Robots = nil })
		heldOut.dropExtraAgents()
		for _, m := range []struct {
			name string
			c    *Classifier
			goal float64
		}{
			{"the contract's table and ai.robots.txt's user-type agents (built from)", full, 100},
			// No goal: an agent's name that no list holds says nothing by
			// itself; this shows what the naming rule ("Name-User/") and
			// the other lists add.
			{"the same, classifier without ai.robots.txt and Folio's own names (held out, no goal)", heldOut, 0},
		} {
			var missed []string
			n := 0
			for _, a := range agents {
				for _, ua := range forms(a) {
					n++
					if got := view(m.c, ua); got != AI {
						missed = append(missed, fmt.Sprintf("%s: %q", got, ua))
					}
				}
			}
			rate := 100 * float64(n-len(missed)) / float64(n)
			fmt.Printf("classification: AI agents, %s, counted ai: %d of %d user agents (%d agents × 3 forms) = %.1f%% (goal at least %.0f%%)\n",
				m.name, n-len(missed), n, len(agents), rate, m.goal)
			if rate < m.goal {
				t.Errorf("%s: %.1f%% of AI agents counted ai, want at least %.0f%%:\n%s", m.name, rate, m.goal, strings.Join(missed, "\n"))
			}
		}
	})
}

// Issue 24's four kinds of user agents that were misclassified, each with
// the cases that must stay as they are beside them.
func TestClassifyIssue24Kinds(t *testing.T) {
	c := newTestClassifier(t)
	kinds := []struct {
		kind  string
		cases []struct {
			ua   string
			want Class
		}
	}{
		{"automated clients that say so: a URL or an e-mail address", []struct {
			ua   string
			want Class
		}{
			{"Mozilla/5.0 (compatible; SomeCrawler/1.0; +https://example.com/bot.html)", Bot},
			{"Name/2.1 (+http://example.org/about)", Bot},
			{"Mozilla/5.0 (compatible; Fetcher/3.0; admin@example.org)", Bot},
			{"LiveJournal.com (webmaster@livejournal.com; for http://www.livejournal.com/users/x/; 3 readers)", Bot},
			{"distilator/0.1 (http://distilator.example/)", Bot},
			{"Mozilla/5.0 (compatible; Site-Check; www.example.net)", Bot},
			{"Mozilla/5.0 (compatible; MistralAI-Index/1.0; +https://docs.mistral.ai/robots)", AISearch},
			// an app's version written like an address is not one
			{"Mozilla/5.0 (iPhone; CPU iPhone OS 16_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/605.1.15 (Ecosia ios@8.1.3.72)", Human},
			// nor are spaces logged as "+"
			{"Mozilla/5.0+(iPhone;+CPU+iPhone+OS+9_3_1+like+Mac+OS+X)+AppleWebKit/601.1.46+(KHTML,+like+Gecko)+Version/9.0+Mobile/13E238+Safari/601.1", Human},
		}},
		{"strings that are not browsers at all", []struct {
			ua   string
			want Class
		}{
			{"Zeno", Bot}, {"phpMyAdmin", Bot}, {"PayPal IPN ( https://www.paypal.com/ipn )", Bot}, {"Google", Bot},
			{"GoogleSites", Bot}, {"Google-Lens", Bot}, {"fetch libfetch/2.0", Bot}, {"Mozilla/4.0 (compatible;)", Bot},
			{"portscout/0.8.1", Bot}, {"Mozilla/5.0", Bot}, {"Mozilla/5.0 (compatible; Foo/1.0)", Bot},
			// a desktop platform alone is a program's, not a browser's
			{"grpc-node/1.24.2 grpc-c/8.0.0 (linux; chttp2; ganges)", Bot}, {"Microsoft-CryptoAPI/10.0", Bot},
			{"iGetter/2 (Macintosh; U; PPC Mac OS X; en)", Bot}, {"Reeder/3.2 CFNetwork/672.1.12 Darwin/14.0.0", Bot},
			// a browser's string pasted into another client's
			{"Anonymous, Mozilla/5.0 (X11; Linux Mint x86_64) AppleWebKit/537.37 (KHTML, like Gecko) Chrome/50.0.2272.105 Safari/537.37 Vivaldi/1.5.201.2", Bot},
			{"iphone|Mozilla/5.0 (iPhone; CPU iPhone OS 8_7_7; like Mac OS X) AppleWebKit/535.47 (KHTML, like Gecko)  Chrome/47.0.2531.349 Mobile Safari/533.7", Bot},
			// a script that reads Markdown is an agent reading the docs
			{"docsync/2.0", AI},
			// old phones and their browsers are browsers
			{"SAMSUNG-GT-E2232/1.0 Openwave/6.2.3 Profile/MIDP-2.0 Configuration/CLDC-1.1 UP.Browser/6.2.3.3.c.1.101 (GUI) MMP/2.0", Human},
			{"Opera/9.80 (MTK; Opera Mini/5.1.3119/34.1138; U; en) Presto/2.8.119 Version/11.10", Human},
			{"Opera/9.80 (J2ME/MIDP; Opera Mini/9 (Compatible; MSIE:9.0; iPhone; BlackBerry9700; AppleWebKit/24.746; U; en) Presto/2.5.25 Version/10.54", Human},
			{"Nokia6300/2.0 (05.00) Profile/MIDP-2.0 Configuration/CLDC-1.1", Human},
			{"NokiaC3-00/5.0 (08.63) Profile/MIDP-2.1 Configuration/CLDC-1.1 Mozilla/5.0 AppleWebKit/420+ (KHTML, like Gecko) Safari/420+", Human},
			{"LG-GD510/V100 Teleca/WAP2.0 MIDP-2.1/CLDC-1.1", Human},
			{"DoCoMo/2.0 N905i(c100;TB;W24H16)", Human},
			{"UCWEB/2.0 (MIDP-2.0; U; Adr 9; en-US; RUBY) U2/1.0.0 UCBrowser/10.7.6.805 U2/1.0.0 Mobile", Human},
			{"Mozilla/5.0 (SAMSUNG; SAMSUNG-GT-S8500/S8500XXJEE; U; Bada/1.0; nl-nl) AppleWebKit/533.1 (KHTML, like Gecko) Dolfin/2.0 Mobile WVGA SMM-MMS/1.2.0 OPN-B", Human},
			{"Mozilla/3.0 (Planetweb/2.100 JS SSL US; Dreamcast US)", Human},
			{"Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.0; Trident/4.0; chromeframe; SLCC1; .NET CLR 2.0.50727)", Human},
			{"Mozilla/5.0 (iPhone; CPU iPhone OS 10_0_2 like Mac OS X) AppleWebKit/602.1.50 (KHTML, like Gecko) AppleNews/608.0.1 Version/2.0.1", Human},
			{"Mozilla/5.0 (4096MB; 1280x720; 200x200; 1024x576; OnePlus CPH2413; 13) AppleWebKit/537.36 (KHTML, like Gecko) ROBLOX Android App 2.706.750 Tablet Hybrid() GooglePlayStore RobloxApp/2.706.750 (GlobalDist; GooglePlayStore)", Human},
			{"Dalvik/2.1.0 (Linux; U; Android 9; SM-G960F Build/PPR1.180610.011)", Human},
			{"QQBrowser (Linux; U; zh-cn; HTC Hero Build/FRF91)", Human},
			{"Midori/0.2 (X11; Linux; U; en-us) WebKit/531.2 ", Human},
			{"MobileSafari/604.1 CFNetwork/978.0.7 Darwin/18.7.0", Human},
			{"Links (2.7; Linux 3.7.9-2-ARCH x86_64; GNU C 4.7.1; text)", Human},
			{"ELinks/0.12~pre6-4 (textmode; Linux; 157x50-2)", Human},
			{"IBrowse/2.3 (AmigaOS 3.9)", Human},
		}},
		{"service fetchers that append their name to a browser string", []struct {
			ua   string
			want Class
		}{
			{"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (compatible; Google-AMPHTML)", Bot},
			{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google-Ads-Qualify) Chrome/130.0.0.0 Safari/537.36", Bot},
			{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/69.0.3497.100 Safari/537.36 AdAuth/1.0", Bot},
			{"facebookexternalua", Bot},
			{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 (compatible; SomeService/2.0)", Bot},
			// an in-app browser appends its app, and stays a person's
			{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 Instagram 330.0.0.40.92 (iPhone14,5; iOS 17_4; en_US; en; scale=3.00; 1170x2532; 594292542)", Human},
			{"Mozilla/5.0 (Linux; Android 10; SM-G973F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/83.0.4103.106 Mobile Safari/537.36 SogouMobileBrowser/5.26.5", Human},
			{"Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.1; Trident/4.0; SLCC2; .NET CLR 2.0.50727)", Human},
		}},
		{"phones whose model name holds a robot word", []struct {
			ua   string
			want Class
		}{
			{"Mozilla/5.0 (Linux; Android 7.0; M bot 54) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Mobile Safari/537.36", Human},
			{"Mozilla/5.0 (Linux; Android 8.1.0; XBot Junior) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.110 Safari/537.36", Human},
			{"Mozilla/5.0 (Linux; Android 6.0; VR BOT 552) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/55.0.2883.91 Mobile Safari/537.36", Human},
			{"Mozilla/5.0 (Linux; Android 13; Spider 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.0.0 Mobile Safari/537.36", Human},
			{"Mozilla/5.0 (Linux; Android 8.1.0; RUBY Build/OPM2.171019.012) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/71.0.3578.99 Mobile Safari/537.36", Human},
			{"Mozilla/5.0 (Linux; Android 5.1; O+ Sonic) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/44.0.2403.133 Mobile Safari/537.36", Human},
			{"Mozilla/5.0 (Linux; U; Android 4.2.2; en-us; Crawler X1 Build/JDQ39) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30", Human},
			{"Dalvik/2.1.0 (Linux; U; Android 9; M bot 54 Build/PPR1.180610.011)", Human},
			{"Mozilla/5.0 (Android 10; Mobile; rv:68.0) Gecko/68.0 Firefox/68.0", Human},
			// a group with an address in it is no phone's
			{"Mozilla/5.0 (Android 3.0; YRSpider; +http://www.yunrang.com/yrspider.html)", Bot},
			{"Instagram 219.0.0.12.117 Android (30/11; 420dpi; 1080x2186; Ruby; Spider 8; spider; mt6765; en_US; 346138365)", Human},
			// a bot word in a product token outside the platform group is a bot
			{"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/127.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", Bot},
			{"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 SomeBot/1.0", Bot},
		}},
	}
	for _, k := range kinds {
		for i, tc := range k.cases {
			in := Input{UserAgent: tc.ua, Path: "/docs/intro"}
			if tc.want == AI {
				in.Path = "/llms.txt"
			}
			if got := c.Classify(in); got != tc.want {
				t.Errorf("%s, case %d: Classify(%q, %q) = %s, want %s", k.kind, i, tc.ua, in.Path, got, tc.want)
			}
		}
	}
}

// Every isbot pattern Folio applies only to shapeless user agents is one
// of isbot's: a refresh that renames one must not silently widen it.
func TestIsbotGenericPatternsExist(t *testing.T) {
	l, err := EmbeddedLists()
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	if err := json.Unmarshal(l.Isbot, &patterns); err != nil {
		t.Fatal(err)
	}
	for p := range isbotGeneric {
		if !slices.Contains(patterns, p) {
			t.Errorf("isbotGeneric has %q, which isbot's patterns.json does not", p)
		}
	}
}

// issueBots are issue 24's examples of automated clients that had counted
// as people: each of its kinds but the phones (which must stay human, see
// TestClassifyIssue24Kinds).
var issueBots = []string{
	"Mozilla/5.0 (compatible; SomeCrawler/1.0; +https://example.com/bot.html)",
	"Mozilla/5.0 (compatible; MistralAI-Index/1.0; +https://docs.mistral.ai/robots)",
	"Zeno", "phpMyAdmin", "PayPal IPN ( https://www.paypal.com/ipn )", "Google", "GoogleSites", "Google-Lens",
	"fetch libfetch/2.0", "Mozilla/4.0 (compatible;)", "distilator/0.1 (http://distilator.example/)", "portscout/0.8.1",
	"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (compatible; Google-AMPHTML)",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google-Ads-Qualify) Chrome/130.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/69.0.3497.100 Safari/537.36 AdAuth/1.0",
	"facebookexternalua",
}

// crawlerEntries reads crawler-user-agents.json.
func crawlerEntries(t testing.TB) []struct {
	Pattern   string   `json:"pattern"`
	Instances []string `json:"instances"`
} {
	t.Helper()
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
	return entries
}

// isbotExamples reads isbot's fixtures/crawlers.yml: bot name → its user
// agents.
func isbotExamples(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/isbot/crawlers.yml")
	if err != nil {
		t.Fatal(err)
	}
	var byName map[string][]string
	if err := yaml.Unmarshal(raw, &byName); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name]...)
	}
	return out
}

// deviceDetectorExamples reads the user agents of device-detector's
// Tests/fixtures/bots.yml, one a line.
func deviceDetectorExamples(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/device-detector/bots-user-agents.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
}

// npmUserAgents reads npm's user-agents corpus: real browsers' user agents
// seen on real sites, each with its share of that traffic (see
// testdata/user-agents/README.md).
func npmUserAgents(t *testing.T) ([]string, []float64) {
	t.Helper()
	f, err := os.Open("testdata/user-agents/user-agents.tsv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var uas []string
	var weights []float64
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		ua, w, ok := strings.Cut(sc.Text(), "\t")
		weight, err := strconv.ParseFloat(w, 64)
		if !ok || err != nil {
			t.Fatalf("user-agents line %q: want user agent, tab, weight", sc.Text())
		}
		uas = append(uas, ua)
		weights = append(weights, weight)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return uas, weights
}

// userAgentType says whether ai.robots.txt files an agent as acting for a
// person: its function is one of the categories of assistants and agents.
func userAgentType(function string) bool {
	switch function {
	case "AI Assistants", "AI Agents", "AI Coding Agents":
		return true
	}
	return false
}

// Issue #10's misfiles and misses, each in its class.
func TestClassifyNamedAgents(t *testing.T) {
	c := newTestClassifier(t)
	cases := []struct {
		ua   string
		want Class
	}{
		{"GitHubCopilotChat/0.22.4", AI},
		{"Mozilla/5.0 (compatible; Google-GeminiNotebook)", AI},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-Browser/1.0; +https://openai.com/bot", AI},
		{"cohere-ai", AITraining},
		{"Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", Bot},
		{"Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)", Bot},
		{"Googlebot (gocrawl v0.4)", Bot},
		{"Mozilla/5.0 (compatible; Google-Site-Verification/1.0)", Bot},
		{"facebookscraper/1.0( +http://www.facebook.com/sharescraper_help.html)", Bot},
		{"Pinterest/0.2 (+https://www.pinterest.com/bot.html)", Bot},
		{"Amazon-Route53-Health-Check-Service (ref 1b6d1fa0-0d56-4ac1-a8a3-a2b8ae2c4c26; report http://amzn.to/1vsZADi)", Bot},
		{"Mozilla/5.0 (compatible; xAI-Bot/1.0; +https://x.ai)", Bot},
		{"Mozilla/5.0 (compatible; Kimi-SearchBot/1.0; +https://kimi.ai/bot)", AISearch},
		{"UniversalFeedParser/4.2-pre-314-svn +http://feedparser.org/", Bot},
		{"Mozilla/5.0 (compatible; Ezooms/1.0; help@moz.com)", Bot},
		{"Tiny Tiny RSS/1.11 (http://tt-rss.org/)", Bot},
		{"python-requests/2.32.3", Bot},
		{"Go-http-client/2.0", Bot},
		{"okhttp/4.12.0", Bot},
		{"axios/1.7.2", Bot},
		{"node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", Bot},
		{"UptimeRobot/2.0; http://www.uptimerobot.com/", Bot},
		{"Mozilla/5.0 (compatible; SiteMonitor/1.0)", Bot},
		{"Mozilla/5.0 (compatible; MyCustomCrawler/0.1)", Bot},
		{"some-scraper/3", Bot},
		{"Mozilla/5.0 (Linux; Android 14; CUBOT KINGKONG 9 Build/UP1A.231005.007) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36", Human},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP3A.240617.008; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.134 Mobile Safari/537.36", Human},
		{"Mozilla/5.0 (Linux; Android 10; SM-G973F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/83.0.4103.106 Mobile Safari/537.36 SogouMobileBrowser/5.26.5", Human},
	}
	for _, tc := range cases {
		if got := c.Classify(Input{UserAgent: tc.ua, Path: "/docs/"}); got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.ua, got, tc.want)
		}
	}
}

// uapCoreBots are uap-core's test strings that ordinaryBrowsers leaves out
// because their family or text names a bot, crawler, spider, library or
// tool.
func uapCoreBots(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, e := range uapCore(t) {
		if e.botFamily {
			out = append(out, e.ua)
		}
	}
	return out
}

// ordinaryBrowsers are uap-core's test strings of browsers: those that start
// like a browser's and whose family and text name no bot, crawler, spider,
// library or tool (uap-core mixes all of those in).
func ordinaryBrowsers(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, e := range uapCore(t) {
		if e.browser {
			out = append(out, e.ua)
		}
	}
	return out
}

type uapEntry struct {
	ua, family string
	browser    bool // starts like a browser and names no bot or tool
	botLike    bool // its family or text names a bot, crawler, library or tool
	botFamily  bool // uap-core's family names a bot, crawler, monitor or script
}

// uapCore reads every test case of uap-core's test_ua.yaml.
func uapCore(t testing.TB) []uapEntry {
	t.Helper()
	f, err := os.Open("testdata/uap-core/test_ua.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []uapEntry
	notBrowser := []string{"bot", "crawl", "spider", "slurp", "scraper", "fetch", "scan", "python", "java", "curl", "wget", "http", "headless", "preview", "monitor", "validator", "check", "sdk",
		// uap-core families of synthetic monitors, scrapers and automation
		// that dress as browsers
		"catchpoint", "ruxit synthetic", "phantomjs", "inspectiontool", "datanyze", "zyborg", "httrack",
		// clients that uap-core files under a browser's family but that are
		// programs: Compuware's Gomez synthetic monitor, AltaVista's
		// Scooter crawler, Microsoft Office checking a link before it opens
		// one, the QGIS map program fetching tiles
		"gomezagent", "scooter", "ms-office", "qgis/"}
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
		e := uapEntry{ua: ua, family: yamlScalar(v)}
		text := strings.ToLower(ua + " " + e.family)
		for _, w := range notBrowser {
			if strings.Contains(text, w) {
				e.botLike = true
			}
		}
		family := strings.ToLower(e.family)
		for _, w := range []string{"bot", "crawl", "spider", "slurp", "fetch", "scan", "seeker", "monitor", "validator", "check", "headless", "phantomjs",
			"python", "curl", "wget", "java", "http", "scrapy", "pinger", "archive"} {
			if strings.Contains(family, w) {
				e.botFamily = true
			}
		}
		e.browser = !e.botLike && (strings.HasPrefix(ua, "Mozilla/") || strings.HasPrefix(ua, "Opera/"))
		out = append(out, e)
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

// BenchmarkClassifyCorpus classifies every user agent of uap-core's
// test_ua.yaml and crawler-user-agents' instances (3,717, most of them
// bots): one op is the whole set.
func BenchmarkClassifyCorpus(b *testing.B) {
	c := newTestClassifier(b)
	var uas []string
	for _, e := range uapCore(b) {
		uas = append(uas, e.ua)
	}
	for _, e := range crawlerEntries(b) {
		uas = append(uas, e.Instances...)
	}
	for b.Loop() {
		for _, ua := range uas {
			c.Classify(Input{UserAgent: ua, Path: "/docs/"})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(uas)), "ns/useragent")
}

func BenchmarkClassify(b *testing.B) {
	c := newTestClassifier(b)
	ua := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
	for b.Loop() {
		c.Classify(Input{UserAgent: ua, Path: "/docs/intro"})
	}
}

// dropExtraAgents forgets Folio's own AI agent names (extraAgents and
// tokenClasses), for a measure of what the lists and rules do without them.
func (c *Classifier) dropExtraAgents() {
	for _, t := range append(slices.Clone(extraAgents), slices.Collect(maps.Keys(tokenClasses))...) {
		if id, ok := c.literalID(strings.ToLower(t)); ok {
			c.wordClass[id] = -1
		}
	}
}

func (c *Classifier) literalID(s string) (int32, bool) {
	i := slices.Index(c.literals, s)
	return int32(i), i >= 0
}

// The rates again, as a docs host sees them: each corpus sent through the
// events API's door (RecordBatch, batches of 1,000 that reuse a user
// agent's verdict) into a project of its own and read back from the views
// export, whose counts must agree with the classifier's and meet the goals.
func TestClassificationThroughEventsAndViews(t *testing.T) {
	s, d, _ := newTestService(t)
	ctx := context.Background()
	browsers, _ := npmUserAgents(t)
	var instances []string
	for _, e := range crawlerEntries(t) {
		instances = append(instances, e.Instances...)
	}
	for _, corpus := range []struct {
		name string
		uas  []string
		goal float64 // at most this % misclassified: browsers not human, bots human
		bots bool
	}{
		{"npm user-agents browsers", browsers, 0.05, false},
		{"crawler-user-agents instances", instances, 5, true},
		{"isbot's crawler examples", isbotExamples(t), 5, true},
		{"device-detector's bot examples", deviceDetectorExamples(t), 5, true},
		{"the issue's bots", issueBots, 5, true},
	} {
		p, err := d.CreateProject(ctx, model.Project{Name: corpus.name, Repository: "/tmp/docs"})
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
		events := make([]Event, 0, len(corpus.uas))
		direct := 0
		for i, ua := range corpus.uas {
			events = append(events, Event{Path: "/docs/page", At: at.Add(time.Duration(i) * time.Millisecond), UserAgent: ua,
				IP: fmt.Sprintf("192.0.2.%d", i%250)})
			if s.Classifier().Classify(Input{UserAgent: ua, Path: "/docs/page"}) == Human {
				direct++
			}
		}
		for start := 0; start < len(events); start += 1000 {
			if _, _, err := s.RecordBatch(ctx, p.ID, events[start:min(start+1000, len(events))], nil); err != nil {
				t.Fatal(err)
			}
		}
		v, err := s.Views(ctx, p.ID, Query{Limit: 250})
		if err != nil {
			t.Fatal(err)
		}
		if v.Totals.All() != len(corpus.uas) || v.Totals.Human != direct {
			t.Errorf("%s: the views export counts %d views, %d human; sent %d, the classifier says %d human",
				corpus.name, v.Totals.All(), v.Totals.Human, len(corpus.uas), direct)
		}
		off := v.Totals.All() - v.Totals.Human
		if corpus.bots {
			off = v.Totals.Human
		}
		rate := 100 * float64(off) / float64(v.Totals.All())
		fmt.Printf("classification through the events and the views export: %s: %d of %d = %.3f%% (goal at most %g%%)\n",
			corpus.name, off, v.Totals.All(), rate, corpus.goal)
		if rate > corpus.goal {
			t.Errorf("%s: %.3f%% through the views export, want at most %g%%", corpus.name, rate, corpus.goal)
		}
	}
}

// Patterns written with look-arounds match as a regular expression engine
// with look-arounds (PCRE, JavaScript) matches them.
func TestLookaroundPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		start   bool // device-detector's rule: the match starts a word
		text    string
		want    bool
	}{
		{`(?<!cu)bot`, false, "cubot", false},
		{`(?<!cu)bot`, false, "abot", true},
		{`(?<!cu)bot`, false, "cubot abot", true},
		{`google(?!app)`, false, "googleapp", false},
		{`google(?!app)`, false, "googleapp google/1", true},
		{`(?<! channel/|google/)google(?!(?:wv|app|/google| pixel))`, false, "Mobile channel/google", false},
		{`(?<! channel/|google/)google(?!(?:wv|app|/google| pixel))`, false, "google pixel", false},
		{`(?<! channel/|google/)google(?!(?:wv|app|/google| pixel))`, false, "Google", true},
		{`[a-z0-9_-]*(?:(?<!cu|Hu|power[ _]|m[ _])bot(?![ _]TAB|[ _]?5[0-9]|[ _]Senior|[ _]Junior)|crawl)(?:[^a-z]|$)`, true, "XBot Junior", false},
		{`[a-z0-9_-]*(?:(?<!cu|Hu|power[ _]|m[ _])bot(?![ _]TAB|[ _]?5[0-9]|[ _]Senior|[ _]Junior)|crawl)(?:[^a-z]|$)`, true, "M bot 54", false},
		{`[a-z0-9_-]*(?:(?<!cu|Hu|power[ _]|m[ _])bot(?![ _]TAB|[ _]?5[0-9]|[ _]Senior|[ _]Junior)|crawl)(?:[^a-z]|$)`, true, "CUBOT KINGKONG", false},
		{`[a-z0-9_-]*(?:(?<!cu|Hu|power[ _]|m[ _])bot(?![ _]TAB|[ _]?5[0-9]|[ _]Senior|[ _]Junior)|crawl)(?:[^a-z]|$)`, true, "mybot/1.0", true},
		{`[a-z0-9_-]*(?:(?<!cu|Hu|power[ _]|m[ _])bot(?![ _]TAB|[ _]?5[0-9]|[ _]Senior|[ _]Junior)|crawl)(?:[^a-z]|$)`, true, "(webcrawl/2)", true},
		{`Daum(?!(?:Apps|Device))`, true, "Daum 4.1", true},
		{`Daum(?!(?:Apps|Device))`, true, "DaumApps/1", false},
		{`Daum(?!(?:Apps|Device))`, true, "xDaum 4.1", false},
		{`Daum(?!(?:Apps|Device))`, true, "sprd-Daum 4.1", true},
		{`zeal(?!ot)`, true, "zealot", false},
		{`zeal(?!ot)`, true, "zeal/1", true},
	}
	for _, tc := range cases {
		leaves, err := lookaroundLeaves("(?i)", tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		got := false
		for i := range leaves {
			if tc.start {
				leaves[i].follows = deviceDetectorStart
			}
			got = got || leaves[i].matches(tc.text)
		}
		if got != tc.want {
			t.Errorf("%q on %q: matched %v, want %v", tc.pattern, tc.text, got, tc.want)
		}
	}
}
