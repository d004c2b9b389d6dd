package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The providers speak their APIs with the standard library: the few calls
// Folio makes (a completion with tools, the list of models) are small JSON
// documents, and the providers' SDKs were 56 of the binary's 85 MB
// (BENCHMARKS.md, "Binary size"). provider_wire_test.go pins what goes on
// the wire, as the SDKs sent and read it.

// apiClient sends JSON to one provider's API, with its credentials, and
// never to another origin: a redirect elsewhere is refused rather than
// followed with the key.
type apiClient struct {
	base   *url.URL // ends in "/"; paths resolve against it
	err    error    // a base URL that does not parse, reported on each call
	header http.Header
	hc     *http.Client
}

func newAPIClient(baseURL string, header http.Header, hc *http.Client) *apiClient {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := &apiClient{header: header}
	c.base, c.err = url.Parse(strings.TrimRight(baseURL, "/") + "/")
	guarded := *hc
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			return fmt.Errorf("the model provider redirected to another origin (%s)", req.URL.Host)
		}
		if hc.CheckRedirect != nil {
			return hc.CheckRedirect(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	c.hc = &guarded
	return c
}

func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch strings.ToLower(u.Scheme) {
		case "https":
			return "443"
		case "http":
			return "80"
		}
		return ""
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// apiRefusal is an answer of 400 or more, which each provider reads into a
// statusError its own way.
type apiRefusal struct {
	status int
	header http.Header
	body   []byte
}

func (r *apiRefusal) Error() string { return fmt.Sprintf("the model provider answered %d", r.status) }

// call sends body (none if nil) to path and decodes the JSON answer into
// out. An answer of 400 or more is an *apiRefusal; a success that is not JSON
// by its Content-Type, or does not decode, is an error.
func (c *apiClient) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	if c.err != nil {
		return fmt.Errorf("the model provider's base URL: %w", c.err)
	}
	u := c.base.ResolveReference(&url.URL{Path: path})
	u.RawQuery = query.Encode()
	var rd io.Reader
	if body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return err
		}
		rd = &buf
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode >= 400 {
		return &apiRefusal{status: res.StatusCode, header: res.Header, body: b}
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if !strings.Contains(mt, "application/json") && !strings.HasSuffix(mt, "+json") {
		return fmt.Errorf("the model provider answered %d with %q, not JSON", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("the model provider's answer: %w", err)
	}
	return nil
}

// jsonText reads a string leniently, as the SDKs did: null is "", and any
// other value that is not a string is its JSON text.
type jsonText string

func (t *jsonText) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*t = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = jsonText(s)
	default:
		*t = jsonText(b)
	}
	return nil
}

// jsonCount reads a token count leniently: a number, or a number in a
// string; anything else is 0.
type jsonCount int64

func (n *jsonCount) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = jsonCount(i)
	} else if f, err := strconv.ParseFloat(s, 64); err == nil {
		*n = jsonCount(f)
	} else {
		*n = 0
	}
	return nil
}
