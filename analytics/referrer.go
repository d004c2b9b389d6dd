package analytics

import (
	"embed"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// matomo's searchengine-and-social-list, embedded unchanged (see
// data/README.md for its revision, licence and how to refresh it).
//
//go:embed data/searchengine-and-social-list/AIAssistants.yml data/searchengine-and-social-list/Socials.yml
//go:embed data/searchengine-and-social-list/SearchEngines.yml
var referrerFiles embed.FS

// Channel is how a person came to a page (CONTRACT §3, /referrers).
type Channel uint8

// The channels. Direct is no referrer, or a page of the site itself.
const (
	Direct Channel = iota
	AIAssistant
	Search
	Social
	OtherReferrer
)

var channelNames = [...]string{Direct: "direct", AIAssistant: "aiAssistant", Search: "search", Social: "social", OtherReferrer: "other"}

// String is the channel's name in the API.
func (c Channel) String() string {
	if int(c) < len(channelNames) {
		return channelNames[c]
	}
	return fmt.Sprintf("channel(%d)", c)
}

// ChannelByName is the channel the API names name.
func ChannelByName(name string) (Channel, bool) {
	for c, n := range channelNames {
		if n == name {
			return Channel(c), true
		}
	}
	return 0, false
}

// Referral is where a view came from, as stored: the referrer's host
// (Source, never its path or query, which can carry tokens; a list's entry
// with a path, as x.com/i/grok, is kept as that entry), its channel and the
// list's name for it ("ChatGPT", "Google"; "" for a host no list names).
// The zero Referral is direct.
type Referral struct {
	Source  string
	Channel Channel
	Name    string
}

// extraReferrers are sites people come from that the upstream lists do not
// name (yet): X's own domain, newer social networks, search engines and
// the ChatGPT app.
var extraReferrers = map[Channel]map[string][]string{
	AIAssistant: {"ChatGPT": {"com.openai.chatgpt"}},
	Social: {"X": {"x.com"}, "Bluesky": {"bsky.app"}, "Mastodon": {"mastodon.social"}, "Threads": {"threads.net", "threads.com"},
		"Discord": {"discord.com"}, "Lobsters": {"lobste.rs"}},
	Search: {"Brave Search": {"search.brave.com"}, "Kagi": {"kagi.com"}},
}

// ReferrerClassifier classes referrers into channels with matomo's lists.
type ReferrerClassifier struct {
	// hosts are the lists' host entries (without "www."), by channel in
	// the order they are tried: AI assistants, social networks, search
	// engines (facebook.com is on the last two; people come from it as
	// a social network).
	hosts [3]map[string]string
	// wild are the search engines' entries with a {} (a country's
	// subdomain or top-level domain), as written.
	wild map[string]string
	// paths are entries with a path (x.com/i/grok, bing.com/images/search):
	// host → entries, tried before the host's own.
	paths map[string][]pathReferrer
}

type pathReferrer struct {
	prefix, source, name string
	channel              Channel
}

// referrerOrder is the order of ReferrerClassifier.hosts.
var referrerOrder = [3]Channel{AIAssistant, Social, Search}

// EmbeddedReferrerClassifier is the referrer classifier of the embedded lists,
// built once.
var EmbeddedReferrerClassifier = sync.OnceValues(func() (*ReferrerClassifier, error) {
	files := map[Channel]string{AIAssistant: "AIAssistants.yml", Social: "Socials.yml", Search: "SearchEngines.yml"}
	lists := map[Channel][]byte{}
	for ch, name := range files {
		b, err := referrerFiles.ReadFile("data/searchengine-and-social-list/" + name)
		if err != nil {
			return nil, err
		}
		lists[ch] = b
	}
	return NewReferrerClassifier(lists[AIAssistant], lists[Social], lists[Search])
})

// NewReferrerClassifier builds the classifier from the three lists as matomo
// writes them: AIAssistants.yml and Socials.yml map a name to its hosts,
// SearchEngines.yml a name to configurations with urls.
func NewReferrerClassifier(aiAssistants, socials, searchEngines []byte) (*ReferrerClassifier, error) {
	r := &ReferrerClassifier{wild: map[string]string{}, paths: map[string][]pathReferrer{}}
	for i := range r.hosts {
		r.hosts[i] = map[string]string{}
	}
	named := map[Channel]map[string][]string{}
	for _, l := range []struct {
		ch   Channel
		file string
		body []byte
	}{{AIAssistant, "AIAssistants.yml", aiAssistants}, {Social, "Socials.yml", socials}} {
		var m map[string][]string
		if err := yaml.Unmarshal(l.body, &m); err != nil {
			return nil, fmt.Errorf("analytics: reading %s: %w", l.file, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("analytics: %s names no site", l.file)
		}
		named[l.ch] = m
	}
	var engines map[string][]struct {
		URLs []string `yaml:"urls"`
	}
	if err := yaml.Unmarshal(searchEngines, &engines); err != nil {
		return nil, fmt.Errorf("analytics: reading SearchEngines.yml: %w", err)
	}
	if len(engines) == 0 {
		return nil, fmt.Errorf("analytics: SearchEngines.yml names no search engine")
	}
	named[Search] = map[string][]string{}
	for name, configs := range engines {
		for _, c := range configs {
			named[Search][name] = append(named[Search][name], c.URLs...)
		}
	}
	for i, ch := range referrerOrder {
		for _, lists := range []map[Channel]map[string][]string{extraReferrers, named} {
			for name, entries := range lists[ch] {
				if n, err := url.PathUnescape(name); err == nil {
					name = n // Socials.yml writes Google+ as Google%2B
				}
				for _, e := range entries {
					r.add(i, ch, name, e)
				}
			}
		}
	}
	return r, nil
}

// add files one list entry: a host, perhaps with a scheme (android-app://)
// or a path, perhaps with {} for any label.
func (r *ReferrerClassifier) add(i int, ch Channel, name, entry string) {
	e := strings.ToLower(strings.TrimSpace(entry))
	if _, rest, ok := strings.Cut(e, "://"); ok {
		e = rest
	}
	host, path, _ := strings.Cut(e, "/")
	host = strings.TrimPrefix(host, "www.")
	if host == "" {
		return
	}
	if path = strings.TrimSuffix(path, "/"); path != "" {
		// An earlier list keeps an entry a later one repeats.
		for _, p := range r.paths[host] {
			if p.prefix == "/"+path {
				return
			}
		}
		r.paths[host] = append(r.paths[host], pathReferrer{prefix: "/" + path, source: host + "/" + path, name: name, channel: ch})
		return
	}
	if strings.Contains(host, "{}") {
		if _, ok := r.wild[host]; !ok {
			r.wild[host] = name
		}
		return
	}
	for _, m := range r.hosts[:i] {
		if _, ok := m[host]; ok {
			return
		}
	}
	if _, ok := r.hosts[i][host]; !ok {
		r.hosts[i][host] = name
	}
}

// Classify classes a view's referrer (the Referer as sent) for a page on
// pageHost (the page's own host when the door knows it, else "") of a
// project whose own domains are ownDomains (the project's allowed domains:
// hosts, "*.example.com" for its subdomains). No referrer, one that is not
// a URL with a host, or one from the site itself is direct.
func (r *ReferrerClassifier) Classify(referrer, pageHost string, ownDomains []string) Referral {
	host, path, ok := referrerHost(referrer)
	if !ok || host == normalHost(pageHost) || ownHost(host, ownDomains) {
		return Referral{}
	}
	for _, p := range r.paths[host] {
		if path == p.prefix || strings.HasPrefix(path, p.prefix+"/") {
			return Referral{Source: p.source, Channel: p.channel, Name: p.name}
		}
	}
	for i, ch := range referrerOrder {
		if name, ok := r.hosts[i][host]; ok {
			return Referral{Source: host, Channel: ch, Name: name}
		}
		if ch == Search {
			if name, ok := r.wildcard(host); ok {
				return Referral{Source: host, Channel: ch, Name: name}
			}
			continue
		}
		// A subdomain of an AI assistant or a social network is it
		// (l.facebook.com, old.reddit.com); not of a search engine
		// (mail.google.com is not Google's search).
		for parent := host; ; {
			_, rest, ok := strings.Cut(parent, ".")
			if !ok || !strings.Contains(rest, ".") {
				break
			}
			parent = rest
			if name, ok := r.hosts[i][parent]; ok {
				return Referral{Source: host, Channel: ch, Name: name}
			}
		}
	}
	return Referral{Source: host, Channel: OtherReferrer}
}

// wildcard finds host among the search engines' entries with a {}: one
// label replaced by {} (de.search.yahoo.com, google.de), or a top-level
// domain of two labels (google.co.uk: com, org, net, co, it or edu and a
// country).
func (r *ReferrerClassifier) wildcard(host string) (string, bool) {
	labels := strings.Split(host, ".")
	for i := range labels {
		l := labels[i]
		labels[i] = "{}"
		name, ok := r.wild[strings.Join(labels, ".")]
		labels[i] = l
		if ok {
			return name, true
		}
	}
	if n := len(labels); n >= 3 {
		switch labels[n-2] {
		case "com", "org", "net", "co", "it", "edu":
			if name, ok := r.wild[strings.Join(labels[:n-2], ".")+".{}"]; ok {
				return name, true
			}
		}
	}
	return "", false
}

// referrerHost is a referrer's host, lower case, without "www.", a port
// or a final dot, and its path; ok is false when it has none.
func referrerHost(referrer string) (host, path string, ok bool) {
	referrer = strings.TrimSpace(referrer)
	if referrer == "" || referrer == "-" {
		return "", "", false
	}
	u, err := url.Parse(referrer)
	if err != nil || u.Host == "" {
		return "", "", false
	}
	host = normalHost(u.Hostname())
	return host, u.EscapedPath(), host != ""
}

// normalHost is a host as referrers are compared: lower case, without
// "www.", a port or a final dot.
func normalHost(h string) string {
	if h == "" {
		return ""
	}
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") && strings.Count(h, ":") == 1 {
		h, _, _ = strings.Cut(h, ":")
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	return strings.TrimPrefix(h, "www.")
}

// ownHost says whether host is one of a project's own domains (its allowed
// domains, as OriginAllowed reads them; none, when it names none).
func ownHost(host string, domains []string) bool {
	for _, d := range domains {
		d = allowedHost(d)
		switch {
		case d == "":
		case strings.HasPrefix(d, "*."):
			if base := normalHost(d[2:]); host == base || strings.HasSuffix(host, "."+base) {
				return true
			}
		case normalHost(d) == host:
			return true
		}
	}
	return false
}
