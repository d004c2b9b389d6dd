package analytics

import "strings"

// The fallback for user agents no list names: words that crawlers, feed
// readers, monitors and scripts put in their user agents and browsers do
// not. It is checked only when the lists decided nothing.
var (
	// crawlerWords found anywhere in the lower-cased user agent, with
	// spaces, dashes and underscores removed ("Health-Check" is healthcheck).
	crawlerWords = []string{"crawl", "spider", "scraper", "slurp", "feedparser", "feedfetcher", "feedreader", "feedburner",
		"healthcheck", "monitor", "uptime", "pingdom", "statuscake", "siteverification", "searchconsole",
		"validator", "linkcheck", "checklink", "linkchecker", "archiver", "indexer", "preview", "headless", "phantomjs",
		"scrapy", "tinytinyrss", "ezooms", "bot.htm", "robots.htm", "siteaudit", "pinger", "seeker", "thumbnail", "newsgator", "bloglovin"}
	// libraryWords name HTTP client libraries and command-line clients:
	// scripts, counted as bots unless they read Markdown (then an agent).
	libraryWords = []string{"curl", "wget", "libwww", "lwp::", "lwprequest", "python", "aiohttp", "httpx", "urllib", "okhttp", "axios",
		"nodefetch", "undici", "gohttpclient", "httpclient", "guzzle", "faraday", "reqwest", "postmanruntime", "insomnia", "httpie",
		"java/", "ruby", "php/", "perl", "dart/", "restsharp", "winhttp", "libcurl", "httpunit", "mechanize", "powershell",
		"http/", "http.rb", "resty", "awssdk", "apthttp", "javaclient"}
	// notBot are words ending in "bot" that name devices or apps.
	notBot = map[string]bool{"cubot": true}
)

// genericMarkers says whether a user agent carries a crawler's word (a
// token ending in "bot", "crawl", "spider", "monitor"…) or an HTTP
// library's.
func genericMarkers(ua string) (crawler, library bool) {
	lower := strings.ToLower(ua)
	// Pinterest's crawler; its app's in-app browser says "Pinterest for …".
	if strings.HasPrefix(lower, "pinterest/") {
		return true, false
	}
	squashed := strings.NewReplacer(" ", "", "-", "", "_", "").Replace(lower)
	for _, w := range crawlerWords {
		if strings.Contains(squashed, w) {
			return true, false
		}
	}
	// A word ending in "bot" (Googlebot, xAI-Bot, Kimi-SearchBot/1.0).
	for i := 0; ; {
		j := strings.Index(lower[i:], "bot")
		if j < 0 {
			break
		}
		end := i + j + 3
		if isWordBoundary(lower, end) {
			start := i + j
			for start > 0 && !isWordBoundary(lower, start-1) {
				start--
			}
			if !notBot[lower[start:end]] {
				return true, false
			}
		}
		i = end
	}
	for _, w := range libraryWords {
		if strings.Contains(squashed, w) {
			return false, true
		}
	}
	return false, false
}
