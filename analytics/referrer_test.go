package analytics

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestReferrerChannels(t *testing.T) {
	refs, err := EmbeddedReferrerClassifier()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, referrer, pageHost string
		own                      []string
		want                     Referral
	}{
		{"no referrer", "", "", nil, Referral{}},
		{"a log's dash", "-", "", nil, Referral{}},
		{"not a URL", "not a url", "", nil, Referral{}},
		{"ChatGPT", "https://chatgpt.com/", "", nil, Referral{"chatgpt.com", AIAssistant, "ChatGPT"}},
		{"ChatGPT's old host, a conversation's path and query dropped", "https://chat.openai.com/c/6f1e?token=s3cret", "", nil, Referral{"chat.openai.com", AIAssistant, "ChatGPT"}},
		{"Perplexity with www", "https://www.perplexity.ai/search?q=folio+keys", "", nil, Referral{"perplexity.ai", AIAssistant, "Perplexity"}},
		{"Claude", "https://claude.ai/chat/0b1c", "", nil, Referral{"claude.ai", AIAssistant, "Claude"}},
		{"Gemini, not Google's search", "https://gemini.google.com/app/7a2f", "", nil, Referral{"gemini.google.com", AIAssistant, "Gemini"}},
		{"Copilot", "https://copilot.microsoft.com/chats/abc", "", nil, Referral{"copilot.microsoft.com", AIAssistant, "Copilot"}},
		{"the ChatGPT Android app", "android-app://com.openai.chatgpt/", "", nil, Referral{"com.openai.chatgpt", AIAssistant, "ChatGPT"}},
		{"Grok on X: an entry with a path", "https://x.com/i/grok?conversation=19", "", nil, Referral{"x.com/i/grok", AIAssistant, "Grok"}},
		{"X itself", "https://x.com/someone/status/1", "", nil, Referral{"x.com", Social, "X"}},
		{"a path that only starts like the entry's", "https://x.com/i/grokking", "", nil, Referral{"x.com", Social, "X"}},
		{"Twitter's link shortener", "https://t.co/AbC123", "", nil, Referral{"t.co", Social, "Twitter"}},
		{"Google", "https://www.google.com/", "", nil, Referral{"google.com", Search, "Google"}},
		{"Google in a country: google.{}", "https://www.google.de/search?q=secret", "", nil, Referral{"google.de", Search, "Google"}},
		{"Google under a two-label top-level domain", "https://www.google.co.uk/", "", nil, Referral{"google.co.uk", Search, "Google"}},
		{"Yahoo in a country: {}.search.yahoo.com", "https://de.search.yahoo.com/search?p=x", "", nil, Referral{"de.search.yahoo.com", Search, "Yahoo!"}},
		{"Bing", "https://www.bing.com/search?q=x", "", nil, Referral{"bing.com", Search, "Bing"}},
		{"Bing's images: an entry with a path", "https://www.bing.com/images/search?q=x", "", nil, Referral{"bing.com/images/search", Search, "Bing Images"}},
		{"DuckDuckGo", "https://duckduckgo.com/", "", nil, Referral{"duckduckgo.com", Search, "DuckDuckGo"}},
		{"Google's search app", "android-app://com.google.android.googlequicksearchbox/", "", nil, Referral{"com.google.android.googlequicksearchbox", Search, "Google"}},
		{"Brave Search, a Folio addition", "https://search.brave.com/search?q=x", "", nil, Referral{"search.brave.com", Search, "Brave Search"}},
		{"a Google host that is not its search", "https://mail.google.com/mail/u/0/", "", nil, Referral{"mail.google.com", OtherReferrer, ""}},
		{"Facebook's link shim", "https://l.facebook.com/l.php?u=https%3A%2F%2Fdocs.example.com", "", nil, Referral{"l.facebook.com", Social, "Facebook"}},
		{"Facebook is social, though also on the search list", "https://www.facebook.com/", "", nil, Referral{"facebook.com", Social, "Facebook"}},
		{"a subdomain of a social network", "https://old.reddit.com/r/golang/comments/1", "", nil, Referral{"old.reddit.com", Social, "reddit"}},
		{"Hacker News", "https://news.ycombinator.com/item?id=1", "", nil, Referral{"news.ycombinator.com", Social, "Hacker News"}},
		{"LinkedIn, upper case and a port", "https://WWW.LinkedIn.com:443/feed/", "", nil, Referral{"linkedin.com", Social, "LinkedIn"}},
		{"Google+ by its decoded name", "https://plus.google.com/", "", nil, Referral{"plus.google.com", Social, "Google+"}},
		{"Bluesky, a Folio addition", "https://bsky.app/profile/someone", "", nil, Referral{"bsky.app", Social, "Bluesky"}},
		{"another site: its host only", "https://blog.example.org/2026/11/keys?session=s3cret#top", "", nil, Referral{"blog.example.org", OtherReferrer, ""}},
		{"the page's own host", "https://docs.example.com/guide", "docs.example.com", nil, Referral{}},
		{"the page's own host, with www and a port", "https://www.docs.example.com:8443/x", "docs.example.com:8443", nil, Referral{}},
		{"one of the project's domains", "https://docs.example.com/guide", "", []string{"docs.example.com"}, Referral{}},
		{"one of the project's domains, written as a URL", "https://docs.example.com/guide", "", []string{" https://Docs.Example.com/ "}, Referral{}},
		{"a subdomain the project's domains allow", "https://v2.docs.example.com/guide", "", []string{"*.example.com"}, Referral{}},
		{"another host than the page's", "https://docs.example.com/guide", "api.example.com", []string{"api.example.com"}, Referral{"docs.example.com", OtherReferrer, ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := refs.Classify(c.referrer, c.pageHost, c.own); got != c.want {
				t.Errorf("Classify(%q, %q, %q) = %+v, want %+v", c.referrer, c.pageHost, c.own, got, c.want)
			}
		})
	}
}

// Every host the three lists name classes into its list's channel, unless
// an earlier list (AI assistants, then social networks, then search
// engines) names it too; and every list is read whole.
func TestReferrerListsRead(t *testing.T) {
	refs, err := EmbeddedReferrerClassifier()
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := referrerFiles.ReadFile("data/searchengine-and-social-list/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var ai, socials map[string][]string
	var engines map[string][]struct {
		URLs []string `yaml:"urls"`
	}
	for _, l := range []struct {
		name string
		v    any
	}{{"AIAssistants.yml", &ai}, {"Socials.yml", &socials}, {"SearchEngines.yml", &engines}} {
		if err := yaml.Unmarshal(read(l.name), l.v); err != nil {
			t.Fatal(err)
		}
	}
	if len(ai) < 15 || len(socials) < 70 || len(engines) < 250 {
		t.Fatalf("lists read short: %d AI assistants, %d social networks, %d search engines", len(ai), len(socials), len(engines))
	}
	check := func(ch Channel, name, entry string) {
		e := strings.TrimSpace(entry)
		if strings.Contains(e, "{}") || strings.Contains(e, "//") {
			return // wildcards and app schemes have their own cases above
		}
		got := refs.Classify("https://"+e, "", nil)
		if got.Channel != ch && !(ch == Search && got.Channel != OtherReferrer && got.Channel != Direct) {
			t.Errorf("%s (%s, %s): got %+v", e, name, ch, got)
		}
	}
	n := 0
	for name, hosts := range ai {
		for _, h := range hosts {
			check(AIAssistant, name, h)
			n++
		}
	}
	for name, hosts := range socials {
		for _, h := range hosts {
			if got := refs.Classify("https://"+strings.TrimSpace(h), "", nil); got.Channel == AIAssistant {
				continue // an AI assistant's host comes first
			}
			check(Social, name, h)
			n++
		}
	}
	for name, configs := range engines {
		for _, c := range configs {
			for _, u := range c.URLs {
				check(Search, name, u)
				n++
			}
		}
	}
	t.Logf("%d list entries checked", n)
}

func TestNewReferrerClassifierRefusesBadLists(t *testing.T) {
	good := []byte("ChatGPT:\n  - chatgpt.com\n")
	engines := []byte("Google:\n  -\n    urls:\n      - google.com\n")
	if _, err := NewReferrerClassifier(good, good, engines); err != nil {
		t.Fatalf("good lists: %v", err)
	}
	for name, lists := range map[string][3][]byte{
		"not YAML":                {[]byte("ChatGPT: [chatgpt.com"), good, engines},
		"search engines as hosts": {good, good, []byte("Google:\n  - google.com\n")},
		"an empty list":           {good, []byte("{}"), engines},
	} {
		if _, err := NewReferrerClassifier(lists[0], lists[1], lists[2]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
