package analytics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"time"
)

// GenConfig shapes synthetic traffic.
type GenConfig struct {
	Views    int       // page views to generate
	Paths    int       // distinct paths (Zipf-distributed popularity)
	Visitors int       // size of the visitor population (Zipf-distributed activity, so many return)
	From, To time.Time // views are spread uniformly over [From, To)
	Seed     uint64
	// Progress, when set, is told how many views each stored batch added.
	Progress func(stored int)
}

// Generator makes realistic synthetic traffic: Zipf-distributed paths,
// returning visitors, and a mix of people (about 70% of views), AI agents
// (10%, some reading Markdown, as do some people's tools), AI search (4%) and training crawlers (6%)
// and bots (10%), with the real user agents of each. People's views come
// from search engines (about 40%), AI assistants (5%), social networks
// (5%), a few hundred other sites (10%), or nowhere (direct).
type Generator struct {
	cfg      GenConfig
	rnd      *rand.Rand
	path     *rand.Zipf
	visitor  *rand.Zipf
	paths    []string
	visitors []synthVisitor
	left     int
	// ref draws people's referrers from a stream of its own, so the rest
	// of the traffic is what the seed gave before views had referrers.
	ref   *rand.Rand
	other *rand.Zipf
}

type synthVisitor struct {
	ua, ip, id string
	agent      bool // an AI agent, which also fetches Markdown
	human      bool // a browser: its views have referrers
}

var (
	genHumans = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0",
	}
	genAgents = []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
		"claude-code/1.0.83 (external, cli)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/1.4.5 Chrome/132.0.6834.210 Electron/34.5.8 Safari/537.36",
	}
	genSearch = []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
	}
	genTraining = []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
		"CCBot/2.0 (https://commoncrawl.org/faq/)",
	}
	genBots = []string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
		"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
		"curl/8.5.0",
	}
	// People's referrers, as browsers send them (the origin alone, or the
	// page with its query), by channel; genOtherSites more sites beside.
	genSearchReferrers = []string{
		"https://www.google.com/", "https://www.google.com/", "https://www.google.com/", "https://www.google.de/",
		"https://www.google.co.uk/", "https://www.bing.com/", "https://duckduckgo.com/", "https://search.brave.com/",
	}
	genAssistantReferrers = []string{
		"https://chatgpt.com/", "https://chatgpt.com/", "https://www.perplexity.ai/", "https://claude.ai/",
		"https://gemini.google.com/", "https://copilot.microsoft.com/",
	}
	genSocialReferrers = []string{
		"https://news.ycombinator.com/", "https://www.reddit.com/r/programming/", "https://t.co/", "https://www.linkedin.com/",
		"https://www.youtube.com/",
	}
)

// genOtherSites is how many other sites (blogs, forums, docs) link to the
// generated pages.
const genOtherSites = 300

// NewGenerator returns a generator of cfg.Views events.
func NewGenerator(cfg GenConfig) *Generator {
	cfg.Paths = max(cfg.Paths, 1)
	cfg.Visitors = max(cfg.Visitors, 1)
	if !cfg.From.Before(cfg.To) {
		cfg.To = cfg.From.Add(24 * time.Hour)
	}
	rnd := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)) // #nosec G404 -- made-up traffic, reproducible from its seed: nothing to guess
	g := &Generator{
		cfg:     cfg,
		rnd:     rnd,
		ref:     rand.New(rand.NewPCG(cfg.Seed^0x5eed0fc0ffee, cfg.Seed)), // #nosec G404 -- as rnd
		path:    rand.NewZipf(rnd, 1.1, 1, uint64(cfg.Paths-1)),           // #nosec G115 -- at least 1, made so above
		visitor: rand.NewZipf(rnd, 1.05, 2, uint64(cfg.Visitors-1)),       // #nosec G115 -- at least 1, made so above
		left:    cfg.Views,
	}
	g.other = rand.NewZipf(g.ref, 1.2, 1, genOtherSites-1)
	sections := []string{"guides", "reference", "api", "tutorials", "concepts", "changelog"}
	g.paths = make([]string, cfg.Paths)
	for i := range g.paths {
		g.paths[i] = fmt.Sprintf("/docs/%s/page-%d", sections[i%len(sections)], i)
	}
	g.visitors = make([]synthVisitor, cfg.Visitors)
	for i := range g.visitors {
		v := synthVisitor{ip: randomIP(rnd)}
		switch r := rnd.IntN(100); {
		case r < 70:
			v.ua, v.human = genHumans[rnd.IntN(len(genHumans))], true
		case r < 80:
			v.ua, v.agent = genAgents[rnd.IntN(len(genAgents))], true
		case r < 84:
			v.ua = genSearch[rnd.IntN(len(genSearch))]
		case r < 90:
			v.ua = genTraining[rnd.IntN(len(genTraining))]
		default:
			v.ua = genBots[rnd.IntN(len(genBots))]
		}
		// Most visitors come with an id from the host; the rest are known
		// only by IP and user agent, so they are new visitors each UTC day.
		if rnd.IntN(4) != 0 {
			v.id = fmt.Sprintf("v%d", i)
		}
		g.visitors[i] = v
	}
	return g
}

func randomIP(rnd *rand.Rand) string {
	if rnd.IntN(5) == 0 {
		var b [16]byte
		b[0], b[1] = 0x20, 0x01
		for i := 2; i < 16; i++ {
			b[i] = byte(rnd.UintN(256)) // #nosec G115 -- below 256
		}
		return netip.AddrFrom16(b).String()
	}
	return netip.AddrFrom4([4]byte{byte(1 + rnd.IntN(223)), byte(rnd.UintN(256)), byte(rnd.UintN(256)), byte(1 + rnd.IntN(254))}).String() // #nosec G115 -- each below 256
}

// Next returns the next event, and false when all have been generated.
func (g *Generator) Next() (Event, bool) {
	if g.left <= 0 {
		return Event{}, false
	}
	g.left--
	v := g.visitors[g.visitor.Uint64()]
	path := g.paths[g.path.Uint64()]
	accept := ""
	switch r := g.rnd.IntN(200); {
	case v.agent && r < 60:
		path += ".md"
	case !v.agent && r == 0:
		path = "/llms.txt" // a person (or their tool) reading the agents' index
	case !v.agent && r < 4:
		// a person's tool asking for the page as Markdown: the same visitor
		// counts as AI on a page it also reads as a human
		accept = "text/markdown, text/html;q=0.8"
	}
	span := g.cfg.To.Sub(g.cfg.From).Milliseconds()
	at := g.cfg.From.Add(time.Duration(g.rnd.Int64N(span)) * time.Millisecond)
	e := Event{Path: path, At: at, UserAgent: v.ua, IP: v.ip, VisitorID: v.id, Accept: accept}
	if v.human {
		e.Referrer = g.referrer()
	}
	return e, true
}

// referrer is where a person's view came from: "" for direct.
func (g *Generator) referrer() string {
	pick := func(l []string) string { return l[g.ref.IntN(len(l))] }
	switch r := g.ref.IntN(100); {
	case r < 40:
		return pick(genSearchReferrers)
	case r < 45:
		return pick(genAssistantReferrers)
	case r < 50:
		return pick(genSocialReferrers)
	case r < 60:
		return fmt.Sprintf("https://site%d.example.net/posts/%d", g.other.Uint64(), g.ref.IntN(20))
	}
	return ""
}

// Generate records cfg.Views generated page views for a project, in batches
// of the events API's size, and returns how many were stored.
func (s *Service) Generate(ctx context.Context, projectID string, cfg GenConfig) (int, error) {
	g := NewGenerator(cfg)
	batch := make([]Event, 0, MaxBatch)
	stored := 0
	for {
		e, ok := g.Next()
		if ok {
			batch = append(batch, e)
		}
		if len(batch) == MaxBatch || !ok && len(batch) > 0 {
			n, err := s.Record(ctx, projectID, batch)
			stored += n
			if cfg.Progress != nil {
				cfg.Progress(n)
			}
			if err != nil {
				return stored, err
			}
			batch = batch[:0]
		}
		if !ok {
			return stored, nil
		}
	}
}
