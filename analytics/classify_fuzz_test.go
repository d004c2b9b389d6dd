package analytics

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
)

// fuzzUserAgents is a few dozen real user agents: browsers from uap-core's
// test corpus and crawlers from crawler-user-agents' instances.
func fuzzUserAgents(t testing.TB) []string {
	t.Helper()
	var out []string
	fh, err := os.Open("testdata/uap-core/test_ua.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 0; sc.Scan() && n < 30; n++ {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "- user_agent_string: ")
		if !ok {
			n--
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') {
			v = strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		}
		out = append(out, v)
	}
	raw, err := os.ReadFile("data/crawler-user-agents/crawler-user-agents.json")
	if err != nil {
		t.Fatal(err)
	}
	var crawlers []struct {
		Instances []string `json:"instances"`
	}
	if err := json.Unmarshal(raw, &crawlers); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(crawlers) && i < 200; i += 7 {
		if len(crawlers[i].Instances) > 0 {
			out = append(out, crawlers[i].Instances[0])
		}
	}
	return append(out,
		"ChatGPT-User/1.0; +https://openai.com/bot", "Claude-User/1.0", "claude-code/1.0.0", "Perplexity-User/1.0",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
		"OAI-SearchBot/1.0", "curl/8.5.0", "", "-")
}

// FuzzClassify: classification of any user agent, path and Accept header
// is one of the classes, the same every time and from concurrent callers;
// Markdown read by what would otherwise be a browser is an AI agent's; and
// cut or re-cased user agents classify without trouble.
func FuzzClassify(f *testing.F) {
	c := newTestClassifier(f)
	for _, ua := range fuzzUserAgents(f) {
		f.Add(ua, "/docs/quickstart", "text/html")
		f.Add(ua, "/llms.txt", "*/*")
	}
	f.Add("Mozilla/5.0", "/docs", "text/markdown, text/html;q=0.9")
	f.Fuzz(func(t *testing.T, ua, path, accept string) {
		in := Input{UserAgent: ua, Path: path, Accept: accept}
		got := c.Classify(in)
		if got >= numClasses {
			t.Fatalf("%+v: class %v is none of the classes", in, got)
		}
		var wg sync.WaitGroup
		var again [4]Class
		for i := range again {
			wg.Go(func() { again[i] = c.Classify(in) })
		}
		wg.Wait()
		for _, a := range again {
			if a != got {
				t.Fatalf("%+v: classified %v, then %v", in, got, a)
			}
		}
		page := c.Classify(Input{UserAgent: ua, Path: "/docs/page"})
		if md := c.Classify(Input{UserAgent: ua, Path: "/docs/page.md"}); page == Human && md != AI {
			t.Fatalf("%q reads pages as human, but Markdown as %v, not ai", ua, md)
		}
		for _, v := range []string{strings.ToUpper(ua), strings.ToLower(ua), ua[:len(ua)/2], ua + " " + ua} {
			if cl := c.Classify(Input{UserAgent: v, Path: path, Accept: accept}); cl >= numClasses {
				t.Fatalf("%q: class %v is none of the classes", v, cl)
			}
		}
	})
}
