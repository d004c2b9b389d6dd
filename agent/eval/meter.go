package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/folio-docs/folio/agent"
)

// meter stands between the agent and the model's endpoint and reads the
// usage of every answer, so a suite reports what a run cost whatever the
// provider, without trusting the agent's own count.
type meter struct {
	srv   *httptest.Server
	price *agent.Price
	mu    sync.Mutex
	usage Usage
}

func newMeter(m Model) (*meter, error) {
	target, err := url.Parse(m.BaseURL)
	if err != nil || target.Scheme == "" || target.Host == "" {
		return nil, fmt.Errorf("the model's base URL %q is not an absolute URL", m.BaseURL)
	}
	mt := &meter{price: m.Price}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target) // the endpoint's scheme, host (Host header too) and base path
		// Let the proxy's transport ask for and undo compression, so the
		// answer it reads is plain JSON.
		r.Out.Header.Del("Accept-Encoding")
	}}
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close() // read whole; nothing more to come
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		mt.read(b)
		return nil
	}
	mt.srv = httptest.NewServer(proxy)
	return mt, nil
}

// URL is the meter's address, to give the agent in place of the endpoint's.
func (m *meter) URL() string { return m.srv.URL }

func (m *meter) Close() { m.srv.Close() }

// read adds one answer's usage, in OpenAI's or Anthropic's shape.
func (m *meter) read(body []byte) {
	var a struct {
		Usage struct {
			// OpenAI
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
			Details          struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			// Anthropic
			InputTokens        int64 `json:"input_tokens"`
			OutputTokens       int64 `json:"output_tokens"`
			CacheReadInput     int64 `json:"cache_read_input_tokens"`
			CacheCreationInput int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &a) != nil {
		return
	}
	u := a.Usage
	in := u.PromptTokens + u.InputTokens + u.CacheReadInput + u.CacheCreationInput
	read := u.Details.CachedTokens + u.CacheReadInput
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage.Calls++
	m.usage.Input += in
	m.usage.Output += u.CompletionTokens + u.OutputTokens
	m.usage.CacheRead += read
	m.usage.CacheWrite += u.CacheCreationInput
	m.usage.LargestRequest = max(m.usage.LargestRequest, in)
}

// Usage is the total so far, with its cost when the price is known.
func (m *meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.usage
	if m.price != nil {
		u.Cost = m.price.Dollars(agent.Usage{Input: u.Input, Cached: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output})
		u.CostKnown = true
	}
	return u
}
