package analytics

import (
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// The lists are embedded unchanged from their upstream projects; see
// data/README.md for the upstream files, revisions, licences and how to
// refresh them. go generate copies them again from the shared/data folder above the
// repository (the folder the project's data sets are kept in).
//
//go:generate go run ./internal/refreshdata -src find -dest .
//go:embed data/ai-robots-txt/robots.json data/crawler-user-agents/crawler-user-agents.json
//go:embed data/device-detector/bots.json data/isbot/patterns.json
var listFiles embed.FS

// extraAgents are agents acting for a person that the upstream lists do not
// name (yet), so the contract's examples and the agents seen in real
// traffic are all recognised.
var extraAgents = []string{"Copilot", "GitHub-Copilot", "GitHubCopilotChat", "claude-code", "Google-Agent", "Devin", "Cursor",
	"Google-GeminiNotebook", "ChatGPT-Browser"}

// agentOperators names the operator of agents whose list gives none (or
// none usable): Folio's own agent table and ai.robots.txt's "Unclear".
var agentOperators = map[string]string{
	"Copilot": "Microsoft", "GitHub-Copilot": "GitHub", "GitHubCopilotChat": "GitHub", "claude-code": "Anthropic",
	"Google-Agent": "Google", "Devin": "Cognition", "Cursor": "Anysphere", "Google-GeminiNotebook": "Google",
	"ChatGPT-Browser": "OpenAI", "Gemini-Deep-Research": "Google",
}

// Agent is who made a page view, when its user agent names it: the agent's
// or crawler's name (ChatGPT-User, claude-code, Googlebot) and its
// operator (OpenAI, Anthropic, Google; "" when unknown). A browser's view
// has the zero Agent; a Markdown read by an unnamed client has
// MarkdownReader.
type Agent struct {
	Name, Operator string
}

// MarkdownReader is the agent of a Markdown read by a client no list names.
var MarkdownReader = Agent{Name: "Markdown reader"}

// extraBots are service fetchers that append their name to a browser's
// user agent and that no list names (yet): a whole product token.
var extraBots = []string{"AdAuth", "Google-Ads-Qualify", "Google-Lens", "GoogleSites"}

// tokenClasses correct ai.robots.txt where its free-text function files an
// agent in the wrong class: cohere-ai is, as far as anyone documents it, a
// crawler gathering training data, not a fetch for a user's prompt.
// xAI-Bot stays among bots, as issue 10 filed it (device-detector calls it
// an AI data scraper; ai.robots.txt does not list it).
var tokenClasses = map[string]Class{"cohere-ai": AITraining, "Kimi-SearchBot": AISearch, "xAI-Bot": Bot}

// wordPatterns are upstream crawler patterns so short or so common that
// they also match inside browsers' tokens ("WIRED/" for RED/,
// "Mini/4.4.39008/" for 008/, SogouMobileBrowser for Sogou, an app named
// Fluid or Expanse); Folio requires them to be a whole word.
var wordPatterns = map[string]bool{`RED\/`: true, `008\/`: true, `Sogou`: true, `Sonic`: true, `Butterfly`: true, `Fever`: true, `Fluid`: true, `Expanse`: true}

// droppedPatterns are upstream crawler patterns that name no crawler but a
// part of ordinary browsers' strings: an Android build number.
var droppedPatterns = map[string]bool{`AP3A\.240617\.008`: true}

// isbotGeneric are isbot's patterns that are ordinary words or shapes,
// not a product's name: they also match apps' and old browsers' user
// agents ("AppleNews/608", "GooglePlayStore", "Hybrid()", "chromeframe",
// "SogouMobileBrowser", "Bada/1.0;"), so Folio applies them only to user
// agents that are not browser-shaped (see browserShaped).
var isbotGeneric = map[string]bool{
	"(?:^|[^g])news(?!sapphire)": true, "(?<! channel/|google/)google(?!(?:wv|app|/google| pixel))": true,
	"(?<! cu)bots?(?:\\b|_)": true, "(?<!cam)scan": true, "(?<!lib)http": true, "24x7": true, ";\\s\\w+;$": true,
	"@[a-z][\\w-]+\\.": true, "\\(\\)": true, "\\.com\\b": true, "\\b\\w+/1\\.0;": true, "\\bbw/": true,
	"\\bdlc\\b": true, "\\bort/": true, "\\bperl\\b": true, "\\btime/": true, "\\|": true,
	"abuse": true, "advisor": true, "agent\\b": true, "analyzer": true, "archive": true, "audit": true, "capture": true,
	"catch": true, "check\\b": true, "checker": true, "chromeframe": true, "classifier": true, "cloudflare": true,
	"detect": true, "discovery": true, "download": true, "feed": true, "grab": true, "insight": true, "inspect": true,
	"java(?!;)": true, "library": true, "measure": true, "monitor\\b": true, "node\\b": true, "optimize": true,
	"parser": true, "preview": true, "proxy": true, "radar": true, "retriever": true, "rss\\b": true, "scrape": true,
	"server": true, "sogou": true, "splash": true, "synapse": true, "synthetic": true, "tools": true, "torrent": true,
	"transcoder": true, "url": true, "validator": true, "virtuoso": true, "spider": true, "crawl": true,
	// shapes: a string of bare words, one long token, a number…
	`^[\w \.\-\(?:\):%]+(?:/v?\d+(?:\.\d+)?(?:\.\d{1,10})*?)?(?:,|$)`: true, `^[^ ]{50,}$`: true, `^\d+\b`: true,
	`^\w+/[\w\(\)]*$`: true, `^[\w\-]+/[\w]+$`: true, `^\w+/\d\.\d\s\([\w@]+\)$`: true, `^[<\(;]`: true,
	`^mozilla/\d\.\d\s[\w\.-]+$`: true, `^mozilla/\d\.\d\s\((?:compatible;)?(?:\s?[\w\d-.]+[\s/]\d+\.\d+)?\)$`: true,
}

// deviceDetectorStart is how device-detector applies each of its patterns
// (case-insensitively, and) only where a word starts: its parsers wrap
// each in (?:^|[^A-Z0-9_-]|[^A-Z0-9-]_|sprd-|MZ-)(?:…). Folio checks the
// text before a match instead, which keeps Go's literal scans fast.
func deviceDetectorStart(before string) bool {
	n := len(before)
	if n == 0 {
		return true
	}
	wordByte := func(b byte) bool { return isAlnum(b) || b == '_' || b == '-' }
	switch last := before[n-1]; {
	case !wordByte(last):
		return true
	case last == '_' && n >= 2 && !isAlnum(before[n-2]) && before[n-2] != '-':
		return true
	case last == '_' && n == 1:
		return false
	}
	lower := strings.ToLower(before[max(0, n-5):])
	return strings.HasSuffix(lower, "sprd-") || strings.HasSuffix(lower, "mz-")
}

// Lists holds the raw lists a Classifier is built from: ai.robots.txt's
// robots.json, crawler-user-agents.json, device-detector's bots (as JSON)
// and isbot's patterns.json. A nil list is left out (the tests measure
// each list's examples on a classifier built without that list).
type Lists struct {
	Robots, Crawlers, DeviceDetector, Isbot []byte
}

// EmbeddedLists are the lists shipped in the binary.
func EmbeddedLists() (Lists, error) {
	var l Lists
	for _, f := range []struct {
		dst  *[]byte
		name string
	}{{&l.Robots, "data/ai-robots-txt/robots.json"}, {&l.Crawlers, "data/crawler-user-agents/crawler-user-agents.json"},
		{&l.DeviceDetector, "data/device-detector/bots.json"}, {&l.Isbot, "data/isbot/patterns.json"}} {
		b, err := listFiles.ReadFile(f.name)
		if err != nil {
			return Lists{}, err
		}
		*f.dst = b
	}
	return l, nil
}

// Classifier sorts traffic into the contract's classes. It is safe for
// concurrent use.
type Classifier struct {
	ac *automaton
	// by literal id: an AI token (wordClass >= 0, matched as a product
	// token), a bot's name (botWord), or the patterns whose required
	// literal it is
	wordClass []int8
	botWord   []bool
	patterns  [][]int32
	crawlers  []crawler
	always    []int32 // patterns with no usable literal: always checked
	// by literal id: the agent an AI token or a bot word names
	wordAgent []Agent
	literals  []string
}

// level is how much a pattern's match says about a user agent.
type level uint8

const (
	// levelTool: a script, an HTTP library, or what isbot's and
	// device-detector's generic rules catch: a Bot, unless it reads
	// Markdown (then an agent).
	levelTool level = iota
	// levelNamed: a named crawler, fetcher or agent: its class, whatever
	// the path.
	levelNamed
)

type crawler struct {
	re   *regexp.Regexp
	leaf *leaf // for a pattern with look-arounds
	word bool  // the match must start a word (see wordPatterns)
	// shapeless: applied only to user agents that are not browser-shaped
	// (see isbotGeneric)
	shapeless bool
	class     Class
	level     level
	source    string // which list: for tests and reports
	agent     Agent  // whom the pattern names ("" when it names no one)
}

// Input is what classification looks at.
type Input struct {
	UserAgent string
	Path      string
	Accept    string
}

// NewClassifier builds the classifier from the embedded lists.
func NewClassifier() (*Classifier, error) {
	l, err := EmbeddedLists()
	if err != nil {
		return nil, err
	}
	return NewClassifierFrom(l)
}

// NewClassifierFrom builds a classifier from the given lists.
func NewClassifierFrom(l Lists) (*Classifier, error) {
	c := &Classifier{}
	var literals []string
	index := map[string]int32{}
	literal := func(s string) int32 {
		if id, ok := index[s]; ok {
			return id
		}
		id := int32(len(literals)) // #nosec G115 -- tokens of the built-in lists: thousands
		index[s] = id
		literals = append(literals, s)
		c.wordClass = append(c.wordClass, -1)
		c.botWord = append(c.botWord, false)
		c.wordAgent = append(c.wordAgent, Agent{})
		c.patterns = append(c.patterns, nil)
		return id
	}
	add := func(cr crawler, pattern string) {
		pid := int32(len(c.crawlers)) // #nosec G115 -- entries of the built-in crawler list: thousands
		c.crawlers = append(c.crawlers, cr)
		lits := requiredLiterals(pattern)
		if lits == nil {
			c.always = append(c.always, pid)
			return
		}
		for _, l := range lits {
			id := literal(l)
			c.patterns[id] = append(c.patterns[id], pid)
		}
	}

	if l.Robots != nil {
		var robots map[string]struct {
			Function string `json:"function"`
			Operator string `json:"operator"`
		}
		if err := json.Unmarshal(l.Robots, &robots); err != nil {
			return nil, fmt.Errorf("analytics: unable to read robots.json: %w", err)
		}
		// Tokens sorted so that equal lower-case tokens get one class,
		// whatever the map's order.
		tokens := make([]string, 0, len(robots))
		for t := range robots {
			tokens = append(tokens, t)
		}
		slices.Sort(tokens)
		for _, t := range tokens {
			id := literal(strings.ToLower(t))
			if cl := robotClass(robots[t].Function); c.wordClass[id] < 0 || Class(c.wordClass[id]) > cl {
				c.wordClass[id] = int8(cl) // #nosec G115 -- a Class: 0 to numClasses-1
				c.wordAgent[id] = Agent{Name: t, Operator: operatorName(robots[t].Operator)}
			}
		}
	}
	for _, t := range extraAgents {
		id := literal(strings.ToLower(t))
		c.wordClass[id] = int8(AI)
		c.wordAgent[id] = Agent{Name: t}
	}
	for t, cl := range tokenClasses {
		id := literal(strings.ToLower(t))
		c.wordClass[id] = int8(cl) // #nosec G115 -- a Class: 0 to numClasses-1
		if c.wordAgent[id].Name == "" {
			c.wordAgent[id] = Agent{Name: t}
		}
	}
	for _, t := range extraBots {
		id := literal(strings.ToLower(t))
		c.botWord[id] = true
		c.wordAgent[id] = Agent{Name: t}
		if strings.HasPrefix(t, "Google") {
			c.wordAgent[id].Operator = "Google"
		}
	}
	for id, a := range c.wordAgent {
		if op, ok := agentOperators[a.Name]; ok && a.Operator == "" {
			c.wordAgent[id].Operator = op
		}
	}

	if l.Crawlers != nil {
		var patterns []struct {
			Pattern string   `json:"pattern"`
			Tags    []string `json:"tags"`
		}
		if err := json.Unmarshal(l.Crawlers, &patterns); err != nil {
			return nil, fmt.Errorf("analytics: unable to read crawler-user-agents.json: %w", err)
		}
		for _, p := range patterns {
			if droppedPatterns[p.Pattern] {
				continue
			}
			re, err := regexp.Compile(p.Pattern)
			if err != nil {
				return nil, fmt.Errorf("analytics: crawler pattern %q: %w", p.Pattern, err)
			}
			cr := crawler{re: re, class: Bot, level: levelNamed, word: wordPatterns[p.Pattern], source: "crawler-user-agents",
				agent: literalAgent(p.Pattern)}
			if slices.Contains(p.Tags, "ai-crawler") {
				cr.class = AITraining
			}
			if slices.Contains(p.Tags, "http-library") || slices.Contains(p.Tags, "browser-automation") {
				cr.level = levelTool
			}
			add(cr, p.Pattern)
		}
	}

	if l.DeviceDetector != nil {
		var bots []struct {
			Regex    string `json:"regex"`
			Name     string `json:"name"`
			Category string `json:"category"`
			Producer struct {
				Name string `json:"name"`
			} `json:"producer"`
		}
		if err := json.Unmarshal(l.DeviceDetector, &bots); err != nil {
			return nil, fmt.Errorf("analytics: unable to read device-detector's bots.json: %w", err)
		}
		for _, b := range bots {
			cr := crawler{class: deviceDetectorClass(b.Category), level: levelNamed, source: "device-detector",
				agent: Agent{Name: b.Name, Operator: operatorName(b.Producer.Name)}}
			if op, ok := agentOperators[b.Name]; ok && cr.agent.Operator == "" {
				cr.agent.Operator = op
			}
			if b.Name == "Generic Bot" {
				// Its catch-all rules (words such as bot, fetch, monitor,
				// and bare library names such as "node"): a script's
				// signature, not a crawler's name.
				cr.level = levelTool
				cr.agent = Agent{}
			}
			leaves, err := lookaroundLeaves("(?i)", b.Regex)
			if err != nil {
				return nil, fmt.Errorf("analytics: device-detector pattern: %w", err)
			}
			for i := range leaves {
				cr := cr
				leaves[i].follows = deviceDetectorStart
				cr.leaf = &leaves[i]
				add(cr, leaves[i].source)
			}
		}
	}

	if l.Isbot != nil {
		var patterns []string
		if err := json.Unmarshal(l.Isbot, &patterns); err != nil {
			return nil, fmt.Errorf("analytics: unable to read isbot's patterns.json: %w", err)
		}
		for _, p := range patterns {
			leaves, err := lookaroundLeaves("(?i)", p)
			if err != nil {
				return nil, fmt.Errorf("analytics: isbot pattern: %w", err)
			}
			for i := range leaves {
				add(crawler{leaf: &leaves[i], class: Bot, level: levelTool, shapeless: isbotGeneric[p], source: "isbot"}, leaves[i].source)
			}
		}
	}
	// A crawler-user-agents pattern that names a crawler device-detector
	// also names takes its operator from there.
	operators := map[string]string{}
	for _, cr := range c.crawlers {
		if cr.source == "device-detector" && cr.agent.Operator != "" {
			operators[strings.ToLower(cr.agent.Name)] = cr.agent.Operator
		}
	}
	for i := range c.crawlers {
		if a := &c.crawlers[i].agent; a.Name != "" && a.Operator == "" {
			a.Operator = operators[strings.ToLower(a.Name)]
		}
	}
	c.ac = newAutomaton(literals)
	c.literals = literals
	return c, nil
}

// deviceDetectorClass reads device-detector's category of a bot.
func deviceDetectorClass(category string) Class {
	switch category {
	case "AI Assistant", "AI Agent":
		return AI
	case "AI Search Crawler":
		return AISearch
	case "AI Data Scraper":
		return AITraining
	}
	return Bot
}

// robotClass reads ai.robots.txt's free-text "function" of an agent.
func robotClass(function string) Class {
	f := strings.ToLower(function)
	switch {
	case f == "ai assistants" || f == "ai agents" || f == "ai coding agents" ||
		strings.Contains(f, "user-initiated") || strings.Contains(f, "user prompts") || strings.Contains(f, "user queries"):
		return AI
	case strings.Contains(f, "search"):
		return AISearch
	default:
		return AITraining
	}
}

// requiredLiterals returns lower-case strings one of which every match of
// the regular expression contains, or nil when it has none of three or more
// bytes (such a pattern is then checked on every user agent).
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lits := mustContain(re.Simplify())
	for _, l := range lits {
		if len(l) < 3 {
			return nil
		}
	}
	return lits
}

func mustContain(re *syntax.Regexp) []string {
	if set, ok := exactSet(re); ok {
		return set
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return mustContain(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return mustContain(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []string
		for _, s := range re.Sub {
			l := mustContain(s)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	case syntax.OpConcat:
		// The best run of sub-expressions that each match a few exact
		// strings (their product), or a sub-expression's own set when that
		// is better.
		var best, run []string
		end := func() {
			if run != nil && score(run) > score(best) {
				best = run
			}
			run = nil
		}
		for _, s := range re.Sub {
			if set, ok := exactSet(s); ok {
				if run == nil {
					run = set
				} else if joined, ok := product(run, set); ok {
					run = joined
				} else {
					end()
					run = set
				}
				continue
			}
			end()
			if ls := mustContain(s); ls != nil && score(ls) > score(best) {
				best = ls
			}
		}
		end()
		return best
	}
	return nil
}

// score is the length of a literal set's shortest string (-1 for none):
// what a prefilter on the set is worth.
func score(ls []string) int {
	m := -1
	for _, l := range ls {
		if m < 0 || len(l) < m {
			m = len(l)
		}
	}
	return m
}

// maxExact bounds the strings an exact set may hold.
const maxExact = 64

// exactSet is the set of lower-case strings a sub-expression matches, when
// it matches only a few (ignoring letter case): "bot", [ _], (?:AI|User),
// (-Image)?.
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCharClass:
		var out []string
		r := re.Rune
		for i := 0; i+1 < len(r); i += 2 {
			if r[i+1]-r[i] > 8 {
				return nil, false
			}
			for c := r[i]; c <= r[i+1]; c++ {
				if s := strings.ToLower(string(c)); !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
		if len(out) == 0 || len(out) > 8 {
			return nil, false
		}
		return out, true
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpQuest:
		set, ok := exactSet(re.Sub[0])
		if !ok || len(set) >= maxExact {
			return nil, false
		}
		return append(set, ""), true
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			set, ok := exactSet(s)
			if !ok || len(out)+len(set) > maxExact {
				return nil, false
			}
			out = append(out, set...)
		}
		return out, true
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			set, ok := exactSet(s)
			if !ok {
				return nil, false
			}
			if out, ok = product(out, set); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// product is every a+b, when there are few enough.
func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExact {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out, true
}

// Classify returns the class of a page view.
func (c *Classifier) Classify(in Input) Class {
	return c.byUserAgent(in.UserAgent).class(in)
}

// ClassifyAgent returns the class of a page view and the agent that made
// it: the zero Agent for a browser (and for a client that names no one),
// MarkdownReader for a Markdown read by a client no list names.
func (c *Classifier) ClassifyAgent(in Input) (Class, Agent) {
	v := c.byUserAgent(in.UserAgent)
	return v.classAgent(in)
}

// uaVerdict is what a user agent alone says about a view: its class when
// that is decided, otherwise whether it is a tool (a Bot unless it asks for
// Markdown). A batch of views reuses it for a user agent seen before.
type uaVerdict struct {
	decided Class
	final   bool
	tool    bool
	agent   Agent // whom the user agent names
}

// class finishes the verdict with the view's path and Accept header.
func (v uaVerdict) class(in Input) Class {
	cl, _ := v.classAgent(in)
	return cl
}

// classAgent finishes the verdict with the view's path and Accept header,
// and says who made the view.
func (v uaVerdict) classAgent(in Input) (Class, Agent) {
	switch {
	case v.final:
		return v.decided, v.agent
	case wantsMarkdown(in.Path, in.Accept):
		// A browser or a script reading Markdown is an agent reading the docs.
		if v.agent.Name == "" {
			return AI, MarkdownReader
		}
		return AI, v.agent
	case v.tool:
		return Bot, v.agent
	}
	return Human, Agent{}
}

// byUserAgent matches a user agent against the lists and the rules, in
// this order: an AI agent's token; a named crawler, fetcher or agent of
// the lists; a product token following AI agents' naming ("Name-User/");
// a crawler's word, a URL or an e-mail address; then what marks a script
// rather than a person (an HTTP library, isbot's and device-detector's
// generic rules, a string that is not a browser's). The device model in an
// Android platform group is left out of all of it: "M bot 54" is a phone.
func (c *Classifier) byUserAgent(ua string) uaVerdict {
	if ua == "" {
		return uaVerdict{decided: Bot, final: true}
	}
	text := maskDeviceModel(plusDecoded(ua))
	agent, agentLen := Class(0), 0
	var who, botWho Agent
	botWord := false
	var candidates []int32
	c.ac.match(text, func(id int32, end int) {
		if cl := c.wordClass[id]; cl >= 0 || c.botWord[id] {
			start := end - c.ac.lens[id]
			if isProductToken(text, start, end) {
				if c.botWord[id] {
					if !botWord {
						botWho = c.wordAgent[id]
					}
					botWord = true
				} else if c.ac.lens[id] > agentLen {
					// The longest AI token wins: Applebot-Extended over Applebot.
					agent, agentLen, who = Class(cl), c.ac.lens[id], c.wordAgent[id] // #nosec G115 -- no bot word, so cl >= 0 above: a Class
				}
			}
		}
		candidates = append(candidates, c.patterns[id]...)
	})
	if agentLen > 0 {
		return uaVerdict{decided: agent, final: true, agent: who}
	}
	candidates = append(candidates, c.always...)
	// Each pattern once, at most.
	slices.Sort(candidates)
	candidates = slices.Compact(candidates)

	named, isNamed := Class(0), false
	for _, pid := range candidates {
		cr := &c.crawlers[pid]
		if cr.level != levelNamed {
			continue
		}
		if isNamed && classRank(cr.class) <= classRank(named) {
			continue
		}
		if cr.matches(text) {
			named, isNamed, who = cr.class, true, cr.agent
		}
	}
	lower := strings.ToLower(text)
	switch {
	case isNamed:
		return uaVerdict{decided: named, final: true, agent: who}
	case botWord:
		return uaVerdict{decided: Bot, final: true, agent: botWho}
	}
	if start, end, ok := userAgentNaming(lower); ok {
		who = Agent{Name: lower[start:end]}
		if len(lower) == len(text) {
			who.Name = text[start:end]
		}
		return uaVerdict{decided: AI, final: true, agent: who}
	}
	crawler, library := genericMarkers(lower)
	if crawler || hasURLOrEmail(lower) {
		return uaVerdict{decided: Bot, final: true}
	}
	shaped := browserShaped(lower)
	if library || !shaped || fetcherAppended(lower) || pastedBrowser(lower) {
		return uaVerdict{tool: true}
	}
	// Only a tool's pattern is left to say anything.
	for _, pid := range candidates {
		cr := &c.crawlers[pid]
		if cr.level == levelTool && !(cr.shapeless && shaped) && cr.matches(text) {
			return uaVerdict{tool: true}
		}
	}
	return uaVerdict{}
}

// classRank orders the classes a user agent's named matches can give: the
// most specific wins (an AI agent over an AI crawler over any bot).
func classRank(c Class) int {
	switch c {
	case AI:
		return 3
	case AITraining:
		return 2
	case AISearch:
		return 1
	}
	return 0
}

// isProductToken says whether ua[start:end] stands as a product token of
// its own ("GPTBot/1.2", "(compatible; Google-Extended)", "claude-code/1"),
// not as part of a word or of a URL ("…/search/spider.html").
func isProductToken(ua string, start, end int) bool {
	if start > 0 && !strings.ContainsRune(" (;,+", rune(ua[start-1])) {
		return false
	}
	return end == len(ua) || strings.ContainsRune("/;), ", rune(ua[end]))
}

// isWordBoundary says whether the byte at i (or the text's edge) separates
// words, so "Spider" does not match inside "Baiduspider".
func isWordBoundary(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	b := s[i]
	return !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9')
}

// wantsMarkdown says whether a request asked for Markdown: a .md path,
// /llms.txt, /llms-full.txt, or an Accept header preferring text/markdown.
func wantsMarkdown(path, accept string) bool {
	p := strings.ToLower(path)
	if strings.HasSuffix(p, ".md") || strings.HasSuffix(p, "/llms.txt") || strings.HasSuffix(p, "/llms-full.txt") {
		return true
	}
	return acceptPrefersMarkdown(accept)
}

// acceptPrefersMarkdown says whether text/markdown has the highest quality
// of the media ranges in an Accept header.
func acceptPrefersMarkdown(accept string) bool {
	if !strings.Contains(strings.ToLower(accept), "markdown") {
		return false
	}
	best, md := -1.0, -1.0
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			if strings.EqualFold(k, "q") {
				_, _ = fmt.Sscanf(v, "%g", &q) // a q that does not read leaves 1, as none would
			}
		}
		if mt == "text/markdown" || mt == "text/x-markdown" {
			md = max(md, q)
		} else {
			best = max(best, q)
		}
	}
	return md > 0 && md >= best
}

func (cr *crawler) matches(ua string) bool {
	if cr.leaf != nil {
		return cr.leaf.matches(ua)
	}
	if !cr.word {
		return cr.re.MatchString(ua)
	}
	for _, m := range cr.re.FindAllStringIndex(ua, -1) {
		endsWord := m[1] > m[0] && isWordBoundary(ua, m[1]-1) || isWordBoundary(ua, m[1])
		if isWordBoundary(ua, m[0]-1) && endsWord {
			return true
		}
	}
	return false
}

// operatorName reads a list's operator or producer: the text of a Markdown
// link ("[OpenAI](https://openai.com)"), the name before a description
// ("Amazon, used for …", "Lyrenth that builds …") or a company suffix
// ("Google Inc."); "" for "Unclear at this time." or a bare URL.
func operatorName(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "]("); i > 0 {
			s = s[1:i]
		}
	}
	low := strings.ToLower(s)
	if strings.HasPrefix(low, "unclear") || strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://") {
		return ""
	}
	for _, sep := range []string{", ", " that ", " to ", " used ", " ("} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	for _, suffix := range []string{" Inc.", " Inc", " LLC", " Ltd.", " Ltd", " GmbH", " Corporation", " Corp.", " S.A.", " AG", " B.V."} {
		s = strings.TrimSuffix(s, suffix)
	}
	return strings.TrimSpace(s)
}

// literalAgent names the crawler of a crawler-user-agents pattern that is
// a plain name ("Googlebot\\/", "bingbot"); other patterns name no one.
func literalAgent(pattern string) Agent {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return Agent{}
	}
	name := strings.Trim(string(re.Rune), "/ ")
	if len(name) < 3 {
		return Agent{}
	}
	a := Agent{Name: name}
	if op, ok := agentOperators[name]; ok {
		a.Operator = op
	}
	return a
}
