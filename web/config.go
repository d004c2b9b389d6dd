package main

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/codehost/github"
)

// Config is everything Folio reads from its environment (CONTRACT §1).
type Config struct {
	Addr                string
	BaseURL             string
	DataDir             string
	DBPath              string
	RedisURL            string
	Worker              bool
	ModelProvider       string
	Model               string
	OpenAIBaseURL       string
	OpenAIAPIKey        string
	AnthropicBaseURL    string
	AnthropicAPIKey     string
	GitHubToken         string
	GitHubAPIURL        string
	GitHubWebhookSecret string
	// A GitHub App instead of a token: all three or none.
	GitHubAppID             int64
	GitHubAppInstallationID int64
	GitHubAppPrivateKey     []byte // PEM, read from FOLIO_GITHUB_APP_PRIVATE_KEY_FILE
	JobTimeout              time.Duration
	Signup                  string
	LogFormat               string
	// LocalRepos holds the local repositories dashboard admins may connect;
	// GitHubOwners, if set, bounds their GitHub repositories.
	LocalRepos   string
	GitHubOwners []string
	// WebhookAllowPrivate lets project webhooks reach private addresses.
	WebhookAllowPrivate bool
	// MetricsAddr, if set, serves GET /metrics there (never on Addr).
	MetricsAddr string
	// AgentRunRetries, if set, is how often Asynq retries a run before
	// archiving it (tasks.AgentRunRetries if nil).
	AgentRunRetries *int
	// AgentJobTokens caps a job's tokens over all its turns (0: no cap);
	// MaxOutputTokens bounds one reply of the model; ModelPrices price the
	// models, in dollars per million tokens, for the jobs' cost.
	AgentJobTokens  int64
	MaxOutputTokens int64
	ModelPrices     map[string]agent.Price
	// TrustedProxies may set the client's address in X-Forwarded-For.
	TrustedProxies []netip.Prefix
	// ServerURL, on a worker, is the serve it works for over the network
	// (no database of its own); WorkerToken is the secret they share.
	ServerURL   string
	WorkerToken string
	// EventKeepAlive is how often a job's event stream sends a comment
	// line (httpx.DefaultKeepAlive if zero; tests shorten it).
	EventKeepAlive time.Duration
}

// minWorkerToken is the shortest FOLIO_WORKER_TOKEN accepted (CONTRACT §1).
const minWorkerToken = 32

// configError names the variable at fault; main prints it as one line.
type configError struct {
	name, value, want string
}

func (e *configError) Error() string {
	return fmt.Sprintf("%s=%q is not valid: %s", e.name, e.value, e.want)
}

// Default models per provider, used when FOLIO_MODEL is unset.
var defaultModels = map[string]string{"openai": "gpt-4.1", "anthropic": "claude-sonnet-4-5"}

func loadConfig(getenv func(string) string) (Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Addr:                get("FOLIO_ADDR", "127.0.0.1:8080"),
		DataDir:             get("FOLIO_DATA_DIR", "./data"),
		RedisURL:            get("FOLIO_REDIS_URL", "redis://127.0.0.1:6379/0"),
		ModelProvider:       get("FOLIO_MODEL_PROVIDER", "openai"),
		OpenAIBaseURL:       get("FOLIO_OPENAI_BASE_URL", "https://api.openai.com/v1"),
		OpenAIAPIKey:        getenv("FOLIO_OPENAI_API_KEY"),
		AnthropicBaseURL:    get("FOLIO_ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
		AnthropicAPIKey:     getenv("FOLIO_ANTHROPIC_API_KEY"),
		GitHubToken:         getenv("FOLIO_GITHUB_TOKEN"),
		GitHubAPIURL:        get("FOLIO_GITHUB_API_URL", "https://api.github.com/"),
		GitHubWebhookSecret: getenv("FOLIO_GITHUB_WEBHOOK_SECRET"),
		Signup:              get("FOLIO_SIGNUP", accounts.SignupInvite),
		LogFormat:           get("FOLIO_LOG_FORMAT", "text"),
	}
	if _, port, err := net.SplitHostPort(c.Addr); err != nil || port == "" {
		return c, &configError{"FOLIO_ADDR", c.Addr, "want host:port, for example 127.0.0.1:8080"}
	}
	if c.MetricsAddr = strings.TrimSpace(getenv("FOLIO_METRICS_ADDR")); c.MetricsAddr != "" {
		if _, port, err := net.SplitHostPort(c.MetricsAddr); err != nil || port == "" || c.MetricsAddr == c.Addr {
			return c, &configError{"FOLIO_METRICS_ADDR", c.MetricsAddr, "want host:port other than FOLIO_ADDR, for example 127.0.0.1:9090"}
		}
	}
	if v := strings.TrimSpace(getenv("FOLIO_AGENT_RUN_RETRIES")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, &configError{"FOLIO_AGENT_RUN_RETRIES", v, "want a whole number, 0 or more"}
		}
		c.AgentRunRetries = &n
	}
	for _, v := range []struct {
		name string
		to   *int64
		min  int64
		def  string
		want string
	}{
		{"FOLIO_AGENT_JOB_TOKENS", &c.AgentJobTokens, 0, "0", "want a whole number of tokens, 0 or more (0: no cap)"},
		{"FOLIO_MODEL_MAX_OUTPUT_TOKENS", &c.MaxOutputTokens, 1, strconv.Itoa(agent.DefaultMaxOutputTokens), "want a whole number of tokens, 1 or more"},
	} {
		s := get(v.name, v.def)
		n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil || n < v.min {
			return c, &configError{v.name, s, v.want}
		}
		*v.to = n
	}
	if v := getenv("FOLIO_MODEL_PRICES"); strings.TrimSpace(v) != "" {
		prices, err := agent.ParsePrices(v)
		if err != nil {
			return c, &configError{"FOLIO_MODEL_PRICES", v, err.Error() + " (model=input/output/cached[/cache-write] in dollars per million tokens, comma-separated)"}
		}
		c.ModelPrices = prices
	}
	c.BaseURL = strings.TrimRight(get("FOLIO_BASE_URL", "http://"+c.Addr), "/")
	if err := checkURL(c.BaseURL, "http", "https"); err != nil {
		return c, &configError{"FOLIO_BASE_URL", c.BaseURL, err.Error()}
	}
	// Absolute from here on: workspaces run git in other directories.
	dataDir, err := filepath.Abs(c.DataDir)
	if err != nil {
		return c, &configError{"FOLIO_DATA_DIR", c.DataDir, "want a directory path"}
	}
	c.DataDir = dataDir
	if c.LocalRepos, err = filepath.Abs(get("FOLIO_LOCAL_REPOS", filepath.Join(c.DataDir, "repos"))); err != nil {
		return c, &configError{"FOLIO_LOCAL_REPOS", getenv("FOLIO_LOCAL_REPOS"), "want a directory path"}
	}
	for _, o := range strings.Split(getenv("FOLIO_GITHUB_OWNERS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.GitHubOwners = append(c.GitHubOwners, o)
		}
	}
	if c.DBPath, err = filepath.Abs(get("FOLIO_DB", filepath.Join(c.DataDir, "folio.db"))); err != nil {
		return c, &configError{"FOLIO_DB", getenv("FOLIO_DB"), "want a file path"}
	}
	var worker bool
	if _, err := redis.ParseURL(c.RedisURL); err != nil {
		return c, &configError{"FOLIO_REDIS_URL", redactURL(c.RedisURL), "want redis://[user:password@]host:port/db"}
	}
	worker, err = strconv.ParseBool(get("FOLIO_WORKER", "true"))
	if err != nil {
		return c, &configError{"FOLIO_WORKER", getenv("FOLIO_WORKER"), "want true or false"}
	}
	c.Worker = worker
	if v := getenv("FOLIO_WEBHOOK_ALLOW_PRIVATE"); v != "" {
		if c.WebhookAllowPrivate, err = strconv.ParseBool(v); err != nil {
			return c, &configError{"FOLIO_WEBHOOK_ALLOW_PRIVATE", v, "want true or false"}
		}
	}
	def, ok := defaultModels[c.ModelProvider]
	if !ok {
		return c, &configError{"FOLIO_MODEL_PROVIDER", c.ModelProvider, "want openai or anthropic"}
	}
	c.Model = get("FOLIO_MODEL", def)
	for name, v := range map[string]string{"FOLIO_OPENAI_BASE_URL": c.OpenAIBaseURL, "FOLIO_ANTHROPIC_BASE_URL": c.AnthropicBaseURL, "FOLIO_GITHUB_API_URL": c.GitHubAPIURL} {
		if err := checkURL(v, "http", "https"); err != nil {
			return c, &configError{name, v, err.Error()}
		}
	}
	if err := loadGitHubApp(&c, getenv); err != nil {
		return c, err
	}
	timeout := get("FOLIO_JOB_TIMEOUT", "30m")
	if c.JobTimeout, err = time.ParseDuration(timeout); err != nil || c.JobTimeout <= 0 {
		return c, &configError{"FOLIO_JOB_TIMEOUT", timeout, "want a positive duration, for example 30m"}
	}
	if !accounts.ValidSignup(c.Signup) {
		return c, &configError{"FOLIO_SIGNUP", c.Signup, "want open, invite or closed"}
	}
	for _, item := range strings.Split(getenv("FOLIO_TRUSTED_PROXIES"), ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil {
				return c, &configError{"FOLIO_TRUSTED_PROXIES", item, "want addresses or CIDR prefixes separated by commas, for example 127.0.0.1,10.0.0.0/8"}
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	if c.ServerURL = strings.TrimRight(strings.TrimSpace(getenv("FOLIO_SERVER_URL")), "/"); c.ServerURL != "" {
		if err := checkURL(c.ServerURL, "http", "https"); err != nil {
			return c, &configError{"FOLIO_SERVER_URL", redactURL(c.ServerURL), err.Error()}
		}
	}
	// Never echoed back: it is a secret.
	if c.WorkerToken = strings.TrimSpace(getenv("FOLIO_WORKER_TOKEN")); c.WorkerToken != "" && len(c.WorkerToken) < minWorkerToken {
		return c, fmt.Errorf("FOLIO_WORKER_TOKEN is too short (%d characters): want at least %d, for example from `openssl rand -hex 32`", len(c.WorkerToken), minWorkerToken)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		return c, &configError{"FOLIO_LOG_FORMAT", c.LogFormat, "want text or json"}
	}
	return c, nil
}

// loadGitHubApp reads a GitHub App's identity, if one is configured: its id,
// its installation's id, and its private key file.
func loadGitHubApp(c *Config, getenv func(string) string) error {
	id, inst, keyFile := strings.TrimSpace(getenv("FOLIO_GITHUB_APP_ID")), strings.TrimSpace(getenv("FOLIO_GITHUB_APP_INSTALLATION_ID")), strings.TrimSpace(getenv("FOLIO_GITHUB_APP_PRIVATE_KEY_FILE"))
	if id == "" && inst == "" && keyFile == "" {
		return nil
	}
	var err error
	if c.GitHubAppID, err = strconv.ParseInt(id, 10, 64); err != nil || c.GitHubAppID <= 0 {
		return &configError{"FOLIO_GITHUB_APP_ID", id, "want the app's numeric id (with FOLIO_GITHUB_APP_INSTALLATION_ID and FOLIO_GITHUB_APP_PRIVATE_KEY_FILE)"}
	}
	if c.GitHubAppInstallationID, err = strconv.ParseInt(inst, 10, 64); err != nil || c.GitHubAppInstallationID <= 0 {
		return &configError{"FOLIO_GITHUB_APP_INSTALLATION_ID", inst, "want the installation's numeric id"}
	}
	if c.GitHubAppPrivateKey, err = os.ReadFile(keyFile); err != nil { // #nosec G304 -- the operator's FOLIO_GITHUB_APP_PRIVATE_KEY_FILE
		return &configError{"FOLIO_GITHUB_APP_PRIVATE_KEY_FILE", keyFile, "want a readable PEM file: " + err.Error()}
	}
	if _, err := github.ParsePrivateKey(c.GitHubAppPrivateKey); err != nil {
		return &configError{"FOLIO_GITHUB_APP_PRIVATE_KEY_FILE", keyFile, err.Error()}
	}
	return nil
}

func checkURL(raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("want an absolute URL")
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return nil
		}
	}
	return fmt.Errorf("want a URL with scheme %s", strings.Join(schemes, " or "))
}

// redactURL hides a password in a URL so it can be printed.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
