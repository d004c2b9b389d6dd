package analytics

import "strings"

// The fallback for user agents no list names: words that crawlers, feed
// readers, monitors and scripts put in their user agents and browsers do
// not. It is checked only when the lists decided nothing.
var (
	// crawlerWords found anywhere in the lower-cased user agent, with
	// spaces, dashes and underscores removed ("Health-Check" is healthcheck).
	crawlerWords = []string{"crawl", "spider", "scraper", "slurp", "feedparser", "feedfetcher", "feedreader", "feedburner",
		"healthcheck", "monitor", "synthetic", "uptime", "pingdom", "statuscake", "siteverification", "searchconsole",
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

// squash drops what separates a crawler's words ("Health-Check").
var squash = strings.NewReplacer(" ", "", "-", "", "_", "")

// genericMarkers says whether a user agent carries a crawler's word (a
// token ending in "bot", "crawl", "spider", "monitor"…) or an HTTP
// library's.
func genericMarkers(lower string) (crawler, library bool) {
	// Pinterest's crawler; its app's in-app browser says "Pinterest for …".
	if strings.HasPrefix(lower, "pinterest/") {
		return true, false
	}
	squashed := squash.Replace(lower)
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

// A browser's user agent names an engine or a browser, or the device it
// runs on; a desktop platform alone ("(Linux; x86_64)", "(Macintosh; U;
// PPC Mac OS X)", "CFNetwork/… Darwin/…") makes a browser only in a
// string that starts like one ("Mozilla/…", "Opera/…"): HTTP libraries and
// desktop programs name their platform too. Old phones' forms are
// browsers (SAMSUNG-GT-E2232/1.0 Openwave/6.2.3 Profile/MIDP-2.0 …
// UP.Browser/6.2.3.3, Opera/9.80 (MTK; Opera Mini/…), DoCoMo/2.0 N905i). A
// user agent naming none of them is not a person's browser: a bare
// product name ("Zeno", "phpMyAdmin", "Google-Lens"), a library
// ("libfetch/2.0"), or "Mozilla/4.0 (compatible;)" with nothing inside.
var (
	// Engines and browsers, found anywhere ("MobileSafari/604.1 CFNetwork/…",
	// "MQQBrowser") …
	engineMarkers = []string{
		"applewebkit", "webkit", "gecko", "khtml", "trident", "msie", "presto", "chrome", "firefox", "safari", "fennec",
		"seamonkey", "konqueror", "omniweb", "netpositive", "ucweb", "ucbrowser", "netfront", "obigo", "openwave",
		"up.browser", "up.link", "iemobile", "nintendobrowser", "mosaic", "netscape", "browser",
	}
	// … or, for names that are also parts of words ("edge" in "knowledge",
	// "opera" in "operator"), starting a word.
	engineWords = []string{
		"edge", "opera", "icab", "lynx", "w3m", "dillo", "netsurf", "teleca", "dolfin", "jasmine", "polaris", "blazer",
		"avantgo", "webtv", "planetweb", "links (", "elinks", "ibrowse",
	}
	deviceMarkers = []string{
		"android", "iphone", "ipad", "ipod", "blackberry", "bb10", "playbook", "symbian", "series40", "series60", "s60", "midp",
		"cldc", "j2me", "brew", "maui", "wap", "bada", "meego", "maemo", "sailfish", "kaios", "tizen", "webos", "web0s",
		"harmonyos", "hbbtv", "smarttv", "smart-tv", "netcast", "roku", "appletv", "apple tv", "tvos", "crkey", "playstation",
		"xbox", "nintendo", "dreamcast", "dalvik", "nokia", "samsung", "sonyericsson", "docomo", "kddi", "softbank", "vodafone",
		"windows phone", "windows ce", "palmos", "palmsource",
	}
	desktopMarkers = []string{
		"windows", "winnt", "win9", "win32", "win64", "win16", "macintosh", "mac os", "mac_powerpc", "x11", "linux", "cros",
		"freebsd", "openbsd", "netbsd", "sunos", "haiku", "amigaos", "morphos", "risc os", "os/2", "beos", "darwin", "cfnetwork",
	}
)

// browserShaped says whether a user agent has a browser's shape (see
// engineMarkers).
func browserShaped(lower string) bool {
	for _, m := range engineMarkers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	if namesWord(lower, engineWords) || namesWord(lower, deviceMarkers) {
		return true
	}
	return (strings.HasPrefix(lower, "mozilla/") || strings.HasPrefix(lower, "opera/")) && namesWord(lower, desktopMarkers)
}

// namesWord says whether one of words starts a word of lower ("cros" in
// "(X11; CrOS x86_64", not in "Microsoft").
func namesWord(lower string, words []string) bool {
	for _, w := range words {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			if at := i + j; at == 0 || !isLetter(lower[at-1]) {
				return true
			}
			i += j + 1
		}
	}
	return false
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// pastedBrowser says whether a browser's user agent was pasted into
// another client's: after a comma or a "|" ("Anonymous, Mozilla/5.0 …",
// "Thumbor/6.7.5, Mozilla/5.0 …"), or into a request line ("POST /parser
// Host: …"). A browser's own starts with its product.
func pastedBrowser(lower string) bool {
	for _, s := range []string{", mozilla/", ",mozilla/", "|mozilla/"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	for _, m := range []string{"get /", "post /", "head /", "put /"} {
		if strings.HasPrefix(lower, m) {
			return true
		}
	}
	return false
}

// fetcherAppended says whether a (lower-case) browser's user agent has a service's name
// appended: a "(compatible; …)" group after the platform's
// ("… Mobile Safari/537.36 (compatible; Google-AMPHTML)"), or more after
// the engine's "(KHTML, like Gecko" ("(KHTML, like Gecko; Google-Ads-Qualify)").
// No browser writes either.
func fetcherAppended(ua string) bool {
	first, depth := true, 0
	for i := 0; i < len(ua); i++ {
		switch ua[i] {
		case ')':
			depth = max(depth-1, 0)
			continue
		case '(':
			depth++
			if depth > 1 {
				continue
			}
		default:
			continue
		}
		rest := strings.TrimLeft(ua[i+1:], " ")
		if !first && strings.HasPrefix(rest, "compatible") {
			return true
		}
		if after, ok := strings.CutPrefix(rest, "khtml, like gecko"); ok && strings.HasPrefix(strings.TrimLeft(after, " "), ";") {
			return true
		}
		first = false
	}
	return false
}

// maskDeviceModel blanks the device model of an Android platform group
// (the field after "Android 7.0;" and any locale, as in
// "(Linux; Android 7.0; M bot 54)" or "(Linux; U; Android 4.2.2; en-us;
// Crawler X1 Build/JDQ39)"), or the whole group right after "Android ",
// as apps write it, so that no bot word matches a phone's name. A group
// with a URL or an e-mail address in it is no phone's, and other user
// agents are returned as they are.
func maskDeviceModel(ua string) string {
	open := strings.IndexByte(ua, '(')
	if open < 0 {
		return ua
	}
	end := strings.IndexByte(ua[open:], ')')
	if end < 0 {
		end = len(ua)
	} else {
		end += open
	}
	if hasURLOrEmail(strings.ToLower(ua[open:end])) {
		return ua
	}
	if strings.HasSuffix(strings.ToLower(strings.TrimRight(ua[:open], " ")), "android") {
		return ua[:open+1] + strings.Repeat(" ", end-open-1) + ua[end:]
	}
	afterAndroid := false
	for i := open + 1; i < end; {
		j := strings.IndexByte(ua[i:end], ';')
		if j < 0 {
			j = end - i
		}
		field := strings.ToLower(strings.TrimSpace(ua[i : i+j]))
		switch {
		case !afterAndroid:
			// UC Browser writes Android as "Adr 9".
			afterAndroid = strings.HasPrefix(field, "android") || strings.HasPrefix(field, "adr ")
		case isLocale(field) || field == "u" || field == "mobile" || field == "tablet" || field == "wv" || strings.HasPrefix(field, "rv:"):
		case field != "":
			return ua[:i] + strings.Repeat(" ", j) + ua[i+j:]
		}
		i += j + 1
	}
	return ua
}

// isLocale says whether a platform field is a language tag: "en",
// "en-us", "zh_CN".
func isLocale(f string) bool {
	lang, region, _ := strings.Cut(strings.ReplaceAll(f, "_", "-"), "-")
	if len(lang) < 2 || len(lang) > 3 || !isLetters(lang) || len(region) > 4 {
		return false
	}
	for i := 0; i < len(region); i++ {
		if !isAlnum(region[i]) {
			return false
		}
	}
	return true
}

// userAgentNaming finds a product token that follows the naming of AI
// agents acting for a person, "Name-User/…" (ChatGPT-User, Claude-User,
// Perplexity-User, MistralAI-User): an agent no list names yet.
func userAgentNaming(lower string) (start, end int, ok bool) {
	for i := 0; ; {
		j := strings.Index(lower[i:], "-user")
		if j < 0 {
			return 0, 0, false
		}
		at := i + j
		end := at + len("-user")
		start := at
		for start > 0 && (isAlnum(lower[start-1]) || lower[start-1] == '.') {
			start--
		}
		if at-start >= 2 && (start == 0 || strings.IndexByte(" (;,+", lower[start-1]) >= 0) &&
			(end == len(lower) || strings.IndexByte("/;) ", lower[end]) >= 0) {
			return start, end, true
		}
		i = end
	}
}

// hasURLOrEmail says whether a user agent carries a URL or an e-mail
// address: a robot's signature ("+https://example.com/bot.html",
// "Name/2.1 (+http://…)", "admin@example.com"); no browser sends one.
func hasURLOrEmail(lower string) bool {
	for _, s := range []string{"http://", "https://", "ftp://"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	if i := strings.Index(lower, "www."); i >= 0 && i+4 < len(lower) && isAlnum(lower[i+4]) && (i == 0 || !isAlnum(lower[i-1])) {
		return true
	}
	// name@host.tld
	for i := 0; ; {
		j := strings.IndexByte(lower[i:], '@')
		if j < 0 {
			return false
		}
		at := i + j
		k := at + 1
		dots, label := 0, 0
		for ; k < len(lower); k++ {
			b := lower[k]
			if isAlnum(b) || b == '-' {
				label++
				continue
			}
			if b == '.' && label > 0 {
				dots++
				label = 0
				continue
			}
			break
		}
		if at > 0 && (isAlnum(lower[at-1]) || strings.IndexByte("._-+", lower[at-1]) >= 0) && dots > 0 && label >= 2 && isLetters(lower[k-label:k]) {
			return true
		}
		i = at + 1
	}
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// plusDecoded undoes the "+" for space some servers' logs write
// ("Mozilla/5.0+(iPhone;+CPU+iPhone+OS+9_3_1…"): a user agent without a
// space but with "+" gets its spaces back.
func plusDecoded(ua string) string {
	if strings.IndexByte(ua, ' ') >= 0 || strings.IndexByte(ua, '+') < 0 {
		return ua
	}
	return strings.ReplaceAll(ua, "+", " ")
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
