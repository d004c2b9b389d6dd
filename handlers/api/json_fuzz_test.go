package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-docs/folio/handlers/httpx"
)

// jsonSeeds are bodies the API really receives, and near misses of them.
var jsonSeeds = []string{
	`{"prompt":"Document the new --dry-run flag"}`,
	`{"prompt":"Fix typos","ref":"main","model":"gpt-4.1"}`,
	`{"prompt":"x","zz":1}`,
	`{"events":[{"path":"/docs/start","timestamp":"2026-04-01T10:00:00Z","userAgent":"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0","ip":"203.0.113.5"}]}`,
	`{"events":[{"path":"/a","timestamp":"2026-04-01","userAgent":"ChatGPT-User/1.0","ip":"2001:db8::1","visitorId":"v1","accept":"text/markdown"},{"path":"/b","zz":true}]}`,
	`{"events":[{"PATH":"/a"}]}`,
	`{"project":"p1","path":"/docs/intro","referrer":"https://example.com/"}`,
	`{"project":"p1","path":"/docs","referrer":""} {}`,
	`{"events":{"path":"/a"}}`,
	`{"prompt":1}`,
	`[1,2]`,
	`{"prompt":"\ud800"}`,
	`{`, ``, `null`, `"x"`,
}

// decodeTargets are the request types httpx.DecodeJSON fills in the API.
func decodeTargets() []func() any {
	return []func() any{
		func() any { return new(promptRequest) },
		func() any { return new(eventsRequest) },
		func() any { return new(trackerEvent) },
	}
}

// FuzzDecodeJSON: every body gets either a value that survives a round
// trip through encoding/json, or the contract's error shape: a 4xx with a
// code and a message, and, when it names a field, a field that is in the
// message.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s), "application/json")
	}
	f.Add([]byte(`{"prompt":"x"}`), "text/plain")
	f.Add([]byte(`{"prompt":"x"}`), "application/vnd.folio+json; charset=utf-8")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, newDst := range decodeTargets() {
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			r.Header.Set("Content-Type", contentType)
			dst := newDst()
			e := httpx.DecodeJSON(r, dst)
			if e != nil {
				checkErrorShape(t, e)
				continue
			}
			// Accepted: what was decoded encodes, and decodes back the same.
			out, err := json.Marshal(dst)
			if err != nil {
				t.Fatalf("%T decoded from %q does not encode: %v", dst, body, err)
			}
			again := newDst()
			r = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(out))
			r.Header.Set("Content-Type", "application/json")
			if e := httpx.DecodeJSON(r, again); e != nil {
				t.Fatalf("%T: %s decoded from %q is refused: %v", dst, out, body, e)
			}
			if !reflect.DeepEqual(dst, again) {
				t.Fatalf("%T: round trip of %q changed %#v into %#v", dst, body, dst, again)
			}
		}
	})
}

// checkErrorShape asserts e is an error the contract allows for a bad body.
func checkErrorShape(t *testing.T, e *httpx.Error) {
	t.Helper()
	switch e.Status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
	default:
		t.Fatalf("a bad body gave status %d: %+v", e.Status, e)
	}
	if e.Code == "" || e.Message == "" {
		t.Fatalf("error without code or message: %+v", e)
	}
	for _, d := range e.Details {
		if d.Field == "" || d.Message == "" {
			t.Fatalf("detail without field or message: %+v", e)
		}
	}
	rec := httptest.NewRecorder()
	httpx.WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), e)
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got["error"] != e.Message || got["code"] != e.Code {
		t.Fatalf("the error body %q does not carry error and code (%v)", rec.Body.Bytes(), err)
	}
}

// FuzzUnknownFieldPath: on the API's request bodies, the path finder
// agrees with encoding/json. A body it accepts has no unknown path; a body
// it refuses for an unknown field gets a path that ends with that field,
// and httpx.DecodeJSON names that path. (httpx fuzzes the finder on a type
// of every shape.)
func FuzzUnknownFieldPath(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Add(`{"kind":"a","items":[{"name":"x"},{"name":"y","zz":1}]}`)
	f.Add(`{"items":[{"NAME":"x"}],"byKey":{"k":{"name":"x","Skip":"no"}}}`)
	f.Add(`{"raw":{"anything":[1,{"goes":2}]},"any":{"x":{"y":1}},"when":"2026-01-01T00:00:00Z","plain":1,"extra":true}`)
	f.Add(`{"ptr":{"name":"x","-":"named","hidden":1}}`)
	f.Add(`{"arr":[{"a":1},{"b":2}],"KIND":"x","pathEmbedded":{}}`)
	f.Fuzz(func(t *testing.T, body string) {
		for _, dst := range []any{&eventsRequest{}, &promptRequest{}} {
			dec := json.NewDecoder(strings.NewReader(body))
			dec.DisallowUnknownFields()
			err := dec.Decode(reflect.New(reflect.TypeOf(dst).Elem()).Interface())
			path := httpx.UnknownFieldPath([]byte(body), reflect.TypeOf(dst))
			if err == nil {
				if path != "" {
					t.Fatalf("%T: encoding/json accepts %q, yet the path finder reports %q", dst, body, path)
				}
				continue
			}
			field, unknown := strings.CutPrefix(err.Error(), "json: unknown field ")
			if !unknown {
				continue
			}
			field = strings.Trim(field, `"`)
			if path != field && !strings.HasSuffix(path, "."+field) {
				t.Fatalf("%T: encoding/json refuses field %q of %q, the path finder says %q", dst, field, body, path)
			}
		}
	})
}
