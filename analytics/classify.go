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
var listFiles embed.FS

// extraAgents are agents acting for a person that the upstream lists do not
// name (yet), so the contract's examples and the agents seen in real
// traffic are all recognised.
var extraAgents = []string{"Copilot", "GitHub-Copilot", "GitHubCopilotChat", "claude-code", "Google-Agent", "Devin", "Cursor",
	"Google-GeminiNotebook", "ChatGPT-Browser"}

// tokenClasses correct ai.robots.txt where its free-text function files an
// agent in the wrong class: cohere-ai is, as far as anyone documents it, a
// crawler gathering training data, not a fetch for a user's prompt.
var tokenClasses = map[string]Class{"cohere-ai": AITraining, "Kimi-SearchBot": AISearch}

// wordPatterns are upstream crawler patterns so short or so common that
// they also match inside browsers' tokens ("WIRED/" for RED/,
// "Mini/4.4.39008/" for 008/, SogouMobileBrowser for Sogou, an app named
// Fluid or Expanse); Folio requires them to be a whole word.
var wordPatterns = map[string]bool{`RED\/`: true, `008\/`: true, `Sogou`: true, `Sonic`: true, `Butterfly`: true, `Fever`: true, `Fluid`: true, `Expanse`: true}

// droppedPatterns are upstream crawler patterns that name no crawler but a
// part of ordinary browsers' strings: an Android build number.
var droppedPatterns = map[string]bool{`AP3A\.240617\.008`: true}

// Classifier sorts traffic into the contract's classes. It is safe for
// concurrent use.
type Classifier struct {
	ac *automaton
	// by literal id: an AI token (wordClass >= 0, matched on word
	// boundaries) or the crawler patterns whose required literal it is
	wordClass []int8
	patterns  [][]int32
	crawlers  []crawler
	always    []int32 // crawler patterns with no usable literal: always checked
}

type crawler struct {
	re    *regexp.Regexp
	word  bool // the match must start a word (see wordPatterns)
	class Class
	tool  bool // an HTTP library or browser automation: a script, not a crawler
}

// Input is what classification looks at.
type Input struct {
	UserAgent string
	Path      string
	Accept    string
}

// NewClassifier builds the classifier from the embedded lists.
func NewClassifier() (*Classifier, error) {
	robots, err := listFiles.ReadFile("data/ai-robots-txt/robots.json")
	if err != nil {
		return nil, err
	}
	crawlers, err := listFiles.ReadFile("data/crawler-user-agents/crawler-user-agents.json")
	if err != nil {
		return nil, err
	}
	return newClassifier(robots, crawlers)
}

func newClassifier(robotsJSON, crawlersJSON []byte) (*Classifier, error) {
	var robots map[string]struct {
		Function string `json:"function"`
	}
	if err := json.Unmarshal(robotsJSON, &robots); err != nil {
		return nil, fmt.Errorf("analytics: unable to read robots.json: %w", err)
	}
	var patterns []struct {
		Pattern string   `json:"pattern"`
		Tags    []string `json:"tags"`
	}
	if err := json.Unmarshal(crawlersJSON, &patterns); err != nil {
		return nil, fmt.Errorf("analytics: unable to read crawler-user-agents.json: %w", err)
	}

	c := &Classifier{}
	var literals []string
	index := map[string]int32{}
	literal := func(s string) int32 {
		if id, ok := index[s]; ok {
			return id
		}
		id := int32(len(literals))
		index[s] = id
		literals = append(literals, s)
		c.wordClass = append(c.wordClass, -1)
		c.patterns = append(c.patterns, nil)
		return id
	}
	// Tokens sorted so that equal lower-case tokens get one class, whatever
	// the map's order.
	tokens := make([]string, 0, len(robots))
	for t := range robots {
		tokens = append(tokens, t)
	}
	slices.Sort(tokens)
	for _, t := range tokens {
		id := literal(strings.ToLower(t))
		if cl := robotClass(robots[t].Function); c.wordClass[id] < 0 || Class(c.wordClass[id]) > cl {
			c.wordClass[id] = int8(cl)
		}
	}
	for _, t := range extraAgents {
		c.wordClass[literal(strings.ToLower(t))] = int8(AI)
	}
	for t, cl := range tokenClasses {
		c.wordClass[literal(strings.ToLower(t))] = int8(cl)
	}
	for _, p := range patterns {
		if droppedPatterns[p.Pattern] {
			continue
		}
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return nil, fmt.Errorf("analytics: crawler pattern %q: %w", p.Pattern, err)
		}
		cr := crawler{re: re, class: Bot, word: wordPatterns[p.Pattern]}
		if slices.Contains(p.Tags, "ai-crawler") {
			cr.class = AITraining
		}
		cr.tool = slices.Contains(p.Tags, "http-library") || slices.Contains(p.Tags, "browser-automation")
		pid := int32(len(c.crawlers))
		c.crawlers = append(c.crawlers, cr)
		lits := requiredLiterals(p.Pattern)
		if lits == nil {
			c.always = append(c.always, pid)
			continue
		}
		for _, l := range lits {
			id := literal(l)
			c.patterns[id] = append(c.patterns[id], pid)
		}
	}
	c.ac = newAutomaton(literals)
	return c, nil
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
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
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
		// The longest run of exactly-known bytes, or a sub-expression's own
		// set when that is better.
		var best []string
		score := func(ls []string) int {
			m := -1
			for _, l := range ls {
				if m < 0 || len(l) < m {
					m = len(l)
				}
			}
			return m
		}
		var run strings.Builder
		end := func() {
			if run.Len() > 0 && run.Len() > score(best) {
				best = []string{run.String()}
			}
			run.Reset()
		}
		for _, s := range re.Sub {
			if lit, ok := exactText(s); ok {
				run.WriteString(lit)
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

// exactText is the lower-case text a sub-expression always matches, if it
// matches exactly one (ignoring letter case), such as "bot" or [wW].
func exactText(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.ToLower(string(re.Rune)), true
	case syntax.OpCharClass:
		r := re.Rune
		if len(r) == 2 && r[0] == r[1] {
			return strings.ToLower(string(r[0])), true
		}
		if len(r) == 4 && r[0] == r[1] && r[2] == r[3] && strings.EqualFold(string(r[0]), string(r[2])) {
			return strings.ToLower(string(r[0])), true
		}
	}
	return "", false
}

// Classify returns the class of a page view.
func (c *Classifier) Classify(in Input) Class {
	return c.byUserAgent(in.UserAgent).class(in)
}

// uaVerdict is what a user agent alone says about a view: its class when
// that is decided, otherwise whether it is a tool (a Bot unless it asks for
// Markdown). A batch of views reuses it for a user agent seen before.
type uaVerdict struct {
	decided Class
	final   bool
	tool    bool
}

// class finishes the verdict with the view's path and Accept header.
func (v uaVerdict) class(in Input) Class {
	switch {
	case v.final:
		return v.decided
	case wantsMarkdown(in.Path, in.Accept):
		// A browser or a script reading Markdown is an agent reading the docs.
		return AI
	case v.tool:
		return Bot
	}
	return Human
}

// byUserAgent matches a user agent against the lists.
func (c *Classifier) byUserAgent(ua string) uaVerdict {
	agent, agentLen := Class(0), 0
	crawled, isCrawler := Class(0), false
	tool := false
	var checked []int32
	check := func(pid int32) {
		if slices.Contains(checked, pid) {
			return
		}
		checked = append(checked, pid)
		cr := c.crawlers[pid]
		if !cr.matches(ua) {
			return
		}
		if cr.tool {
			tool = true
			return
		}
		if !isCrawler || cr.class > crawled {
			crawled, isCrawler = cr.class, true
		}
	}
	c.ac.match(ua, func(id int32, end int) {
		if cl := c.wordClass[id]; cl >= 0 {
			start := end - c.ac.lens[id]
			// The longest AI token wins: Applebot-Extended over Applebot.
			if isProductToken(ua, start, end) && c.ac.lens[id] > agentLen {
				agent, agentLen = Class(cl), c.ac.lens[id]
			}
		}
		for _, pid := range c.patterns[id] {
			check(pid)
		}
	})
	for _, pid := range c.always {
		check(pid)
	}
	switch {
	case agentLen > 0:
		return uaVerdict{decided: agent, final: true}
	case isCrawler:
		return uaVerdict{decided: crawled, final: true}
	case ua == "":
		return uaVerdict{decided: Bot, final: true}
	}
	crawler, library := genericMarkers(ua)
	if crawler {
		return uaVerdict{decided: Bot, final: true}
	}
	return uaVerdict{tool: tool || library}
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
				fmt.Sscanf(v, "%g", &q)
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

func (cr crawler) matches(ua string) bool {
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
