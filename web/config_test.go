package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
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
		c.JobTimeout != 30*time.Minute || c.Signup != "invite" {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigNamesTheBadVariable(t *testing.T) {
	for name, value := range map[string]string{
		"FOLIO_ADDR":               "8080",
		"FOLIO_BASE_URL":           "folio.example",
		"FOLIO_REDIS_URL":          "http://localhost",
		"FOLIO_WORKER":             "maybe",
		"FOLIO_MODEL_PROVIDER":     "gemini",
		"FOLIO_OPENAI_BASE_URL":    "not a url",
		"FOLIO_ANTHROPIC_BASE_URL": "ftp://x",
		"FOLIO_GITHUB_API_URL":     "::",
		"FOLIO_JOB_TIMEOUT":        "-5m",
		"FOLIO_SIGNUP":             "sometimes",
		"FOLIO_LOG_FORMAT":         "xml",
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
	te := newTestEnv(t)
	te["FOLIO_REDIS_URL"] = "redis://:hunter2@localhost:6379/not-a-number"
	_, _, errs := te.folio(t, "", "migrate")
	if strings.Contains(errs, "hunter2") {
		t.Fatalf("stderr shows the Redis password: %q", errs)
	}
}
