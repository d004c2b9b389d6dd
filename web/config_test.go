package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/agent"
)

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if c.DataDir != filepath.Join(wd, "data") || c.DBPath != filepath.Join(wd, "data", "folio.db") {
		t.Fatalf("data dir %q and db %q: want ./data made absolute", c.DataDir, c.DBPath)
	}
	if c.Addr != "127.0.0.1:8080" || c.BaseURL != "http://127.0.0.1:8080" ||
		c.RedisURL != "redis://127.0.0.1:6379/0" || !c.Worker || c.ModelProvider != "openai" || c.Model == "" ||
		c.JobTimeout != 30*time.Minute || c.Signup != "invite" ||
		c.AgentJobTokens != 0 || c.MaxOutputTokens != agent.DefaultMaxOutputTokens || c.ModelPrices != nil {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigAgentLimitsAndPrices(t *testing.T) {
	t.Parallel()
	env := map[string]string{"FOLIO_AGENT_JOB_TOKENS": "5_000_000", "FOLIO_MODEL_MAX_OUTPUT_TOKENS": "8192",
		"FOLIO_MODEL_PRICES": "gpt-4.1=2/8/0.5, claude-sonnet-4-5=3/15/0.3/3.75"}
	c, err := loadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentJobTokens != 5_000_000 || c.MaxOutputTokens != 8192 || len(c.ModelPrices) != 2 ||
		c.ModelPrices["claude-sonnet-4-5"] != (agent.Price{Input: 3, Cached: 0.3, Output: 15, CacheWrite: 3.75}) {
		t.Fatalf("config %+v", c)
	}
}

func TestConfigNamesTheBadVariable(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"FOLIO_ADDR":                        "8080",
		"FOLIO_BASE_URL":                    "folio.example",
		"FOLIO_REDIS_URL":                   "http://localhost",
		"FOLIO_WORKER":                      "maybe",
		"FOLIO_MODEL_PROVIDER":              "gemini",
		"FOLIO_OPENAI_BASE_URL":             "not a url",
		"FOLIO_ANTHROPIC_BASE_URL":          "ftp://x",
		"FOLIO_GITHUB_API_URL":              "::",
		"FOLIO_JOB_TIMEOUT":                 "-5m",
		"FOLIO_SIGNUP":                      "sometimes",
		"FOLIO_LOG_FORMAT":                  "xml",
		"FOLIO_GITHUB_APP_ID":               "twelve",
		"FOLIO_TRUSTED_PROXIES":             "127.0.0.1, nginx",
		"FOLIO_GITHUB_APP_PRIVATE_KEY_FILE": "/nonexistent.pem",
		"FOLIO_METRICS_ADDR":                "9090",
		"FOLIO_AGENT_RUN_RETRIES":           "-1",
		"FOLIO_AGENT_JOB_TOKENS":            "lots",
		"FOLIO_MODEL_MAX_OUTPUT_TOKENS":     "0",
		"FOLIO_MODEL_PRICES":                "gpt-4.1=2/8",
	} {
		t.Run(name, func(t *testing.T) {
			te := newTestEnv(t)
			te[name] = value
			code, out, errs := te.folio(t, "", "migrate")
			if code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], name) {
				t.Fatalf("stderr %q: want one line naming %s", errs, name)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

func TestConfigRedactsRedisPassword(t *testing.T) {
	t.Parallel()
	te := newTestEnv(t)
	te["FOLIO_REDIS_URL"] = "redis://:hunter2@localhost:6379/not-a-number"
	_, _, errs := te.folio(t, "", "migrate")
	if strings.Contains(errs, "hunter2") {
		t.Fatalf("stderr shows the Redis password: %q", errs)
	}
}

func TestConfigGitHubApp(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
	env := map[string]string{"FOLIO_GITHUB_APP_ID": "12", "FOLIO_GITHUB_APP_INSTALLATION_ID": "34", "FOLIO_GITHUB_APP_PRIVATE_KEY_FILE": keyFile}
	c, err := loadConfig(func(k string) string { return env[k] })
	if err != nil || c.GitHubAppID != 12 || c.GitHubAppInstallationID != 34 || len(c.GitHubAppPrivateKey) == 0 {
		t.Fatalf("config %+v, %v", c, err)
	}
	os.WriteFile(keyFile, []byte("not a key"), 0o600)
	if _, err := loadConfig(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "FOLIO_GITHUB_APP_PRIVATE_KEY_FILE") {
		t.Fatalf("a bad key file: %v, want an error naming FOLIO_GITHUB_APP_PRIVATE_KEY_FILE", err)
	}
}

func TestConfigTrustedProxies(t *testing.T) {
	t.Parallel()
	env := map[string]string{"FOLIO_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8 ,::1"}
	c, err := loadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.TrustedProxies {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "127.0.0.1/32 10.0.0.0/8 ::1/128" {
		t.Fatalf("trusted proxies %v", got)
	}
}
