package analytics

import "testing"

// Each view's agent: the name and operator of whom its user agent names,
// none for a browser, "Markdown reader" for a Markdown read by a client no
// list names.
func TestClassifyAgent(t *testing.T) {
	c := newTestClassifier(t)
	const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
	cases := []struct {
		ua, path, accept string
		class            Class
		agent            Agent
	}{
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", class: AI, agent: Agent{"ChatGPT-User", "OpenAI"}},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", class: AI, agent: Agent{"Claude-User", "Anthropic"}},
		{ua: "claude-code/1.0.83 (external, cli)", class: AI, agent: Agent{"claude-code", "Anthropic"}},
		{ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.48.6 Chrome/132.0.6834.210 Electron/34.3.4 Safari/537.36", class: AI, agent: Agent{"Cursor", "Anysphere"}},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", class: AI, agent: Agent{"Perplexity-User", "Perplexity"}},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", class: AITraining, agent: Agent{"GPTBot", "OpenAI"}},
		{ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", class: Bot, agent: Agent{"Googlebot", "Google"}},
		{ua: "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.7390.122 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", class: Bot, agent: Agent{"Googlebot", "Google"}},
		// A "Name-User" agent no list names keeps its own name.
		{ua: "Mozilla/5.0 (compatible; Acme-User/1.0)", class: AI, agent: Agent{Name: "Acme-User"}},
		// Browsers: none, whatever the path.
		{ua: chrome, path: "/docs/start", class: Human},
		{ua: "Mozilla/5.0 (Linux; Android 7.0; M bot 54) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Mobile Safari/537.36", class: Human},
		// Markdown read by a client no list names.
		{ua: chrome, path: "/docs/start.md", class: AI, agent: MarkdownReader},
		{ua: chrome, path: "/docs/start", accept: "text/markdown", class: AI, agent: MarkdownReader},
		{ua: "python-requests/2.31.0", path: "/llms.txt", class: AI, agent: MarkdownReader},
		{ua: "curl/8.4.0", path: "/docs/start.md", class: AI, agent: MarkdownReader},
		// A named agent reading Markdown keeps its name.
		{ua: "claude-code/1.0.83 (external, cli)", path: "/llms.txt", class: AI, agent: Agent{"claude-code", "Anthropic"}},
	}
	for _, tc := range cases {
		in := Input{UserAgent: tc.ua, Path: tc.path, Accept: tc.accept}
		if tc.path == "" {
			in.Path = "/docs"
		}
		class, agent := c.ClassifyAgent(in)
		if class != tc.class || agent != tc.agent {
			t.Errorf("ClassifyAgent(%q, %q, %q) = %v, %+v; want %v, %+v", tc.ua, in.Path, tc.accept, class, agent, tc.class, tc.agent)
		}
		if got := c.Classify(in); got != class {
			t.Errorf("Classify(%q) = %v, ClassifyAgent says %v", tc.ua, got, class)
		}
	}
}

// Every view not counted human is named, or is a script (a Bot with no
// name), on the lists' own examples: an AI agent is always named.
func TestClassifyAgentNamesEveryAIAgent(t *testing.T) {
	c := newTestClassifier(t)
	for _, ua := range deviceDetectorExamples(t) {
		class, agent := c.ClassifyAgent(Input{UserAgent: ua, Path: "/docs"})
		if (class == AI || class == AISearch || class == AITraining) && agent.Name == "" {
			t.Errorf("%q: class %v with no agent name", ua, class)
		}
		if class == Human && agent != (Agent{}) {
			t.Errorf("%q: human with agent %+v", ua, agent)
		}
	}
}

func TestOperatorName(t *testing.T) {
	for in, want := range map[string]string{
		"[OpenAI](https://openai.com)": "OpenAI", "Google": "Google", "Google Inc.": "Google", "Unclear at this time.": "",
		"Amazon, used for fetching web content": "Amazon", "https://brightdata.com/brightbot": "", "Meta/Facebook": "Meta/Facebook",
		"Lyrenth that builds an AI-readable index": "Lyrenth", "": "",
	} {
		if got := operatorName(in); got != want {
			t.Errorf("operatorName(%q) = %q, want %q", in, got, want)
		}
	}
}
