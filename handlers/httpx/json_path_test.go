package httpx

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

type pathInner struct {
	Name string `json:"name"`
	Skip string `json:"-"`
	//lint:ignore SA5008 encoding/json names this field "-"; the test checks UnknownFieldPath reads the tag as encoding/json does
	Named string `json:"-,"`
}

type pathEmbedded struct {
	Kind string `json:"kind"`
}

type pathOuter struct {
	pathEmbedded
	Items []pathInner           `json:"items"`
	ByKey map[string]pathInner  `json:"byKey"`
	Raw   json.RawMessage       `json:"raw"`
	Any   any                   `json:"any"`
	When  time.Time             `json:"when"`
	Ptr   *pathInner            `json:"ptr"`
	Arr   [2]map[string]float64 `json:"arr"`
	Plain int
	//lint:ignore U1000 an unexported field encoding/json never fills, which UnknownFieldPath must report as unknown
	hidden int
}

// UnknownFieldPath finds what encoding/json refuses, and where.
func TestUnknownFieldPath(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"kind":"a","items":[{"name":"x"},{"name":"y","zz":1}]}`, "items[1].zz"},
		{`{"items":[{"NAME":"x"}],"byKey":{"k":{"name":"x","Skip":"no"}}}`, "byKey.k.Skip"},
		{`{"raw":{"anything":[1,{"goes":2}]},"any":{"x":{"y":1}},"when":"2026-01-01T00:00:00Z","plain":1,"extra":true}`, "extra"},
		{`{"ptr":{"name":"x","-":"named","hidden":1}}`, "ptr.hidden"},
		{`{"arr":[{"a":1},{"b":2}],"KIND":"x","pathEmbedded":{}}`, "pathEmbedded"},
		{`{"items":[{"name":"x"}]}`, ""},
	} {
		if got := UnknownFieldPath([]byte(tc.body), reflect.TypeOf(&pathOuter{})); got != tc.want {
			t.Errorf("%s: path %q, want %q", tc.body, got, tc.want)
		}
		// The same verdict as encoding/json's.
		dec := json.NewDecoder(strings.NewReader(tc.body))
		dec.DisallowUnknownFields()
		err := dec.Decode(&pathOuter{})
		if (err != nil) != (tc.want != "") {
			t.Errorf("%s: encoding/json says %v", tc.body, err)
		}
	}
}

// FuzzUnknownFieldPath: the path finder agrees with encoding/json. A body
// it accepts has no unknown path; a body it refuses for an unknown field
// gets a path that ends with that field, and DecodeJSON names that path.
// (The API fuzzes it on its own request bodies too.)
func FuzzUnknownFieldPath(f *testing.F) {
	f.Add(`{"kind":"a","items":[{"name":"x"},{"name":"y","zz":1}]}`)
	f.Add(`{"items":[{"NAME":"x"}],"byKey":{"k":{"name":"x","Skip":"no"}}}`)
	f.Add(`{"raw":{"anything":[1,{"goes":2}]},"any":{"x":{"y":1}},"when":"2026-01-01T00:00:00Z","plain":1,"extra":true}`)
	f.Add(`{"ptr":{"name":"x","-":"named","hidden":1}}`)
	f.Add(`{"arr":[{"a":1},{"b":2}],"KIND":"x","pathEmbedded":{}}`)
	f.Fuzz(func(t *testing.T, body string) {
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		err := dec.Decode(&pathOuter{})
		path := UnknownFieldPath([]byte(body), reflect.TypeFor[*pathOuter]())
		if err == nil {
			if path != "" {
				t.Fatalf("encoding/json accepts %q, yet the path finder reports %q", body, path)
			}
			return
		}
		field, unknown := strings.CutPrefix(err.Error(), "json: unknown field ")
		if !unknown {
			return
		}
		field = strings.Trim(field, `"`)
		if path != field && !strings.HasSuffix(path, "."+field) {
			t.Fatalf("encoding/json refuses field %q of %q, the path finder says %q", field, body, path)
		}
	})
}

type typeDetail struct {
	Hits *int64         `json:"hits"`
	Tags map[string]int `json:"tags"`
}

type typeEvent struct {
	Type string `json:"type"`
	typeDetail
}

type typeBatch struct {
	Events []typeEvent           `json:"events"`
	ByKey  map[string]*typeEvent `json:"byKey"`
	typeEvent
}

// The same types without embedding.
type flatEvent struct {
	Type string         `json:"type"`
	Hits *int64         `json:"hits"`
	Tags map[string]int `json:"tags"`
}

type flatBatch struct {
	Events []flatEvent           `json:"events"`
	ByKey  map[string]*flatEvent `json:"byKey"`
	Type   string                `json:"type"`
	Hits   *int64                `json:"hits"`
	Tags   map[string]int        `json:"tags"`
}

// A value of the wrong type is named by its key's path, through embedded
// structs as through fields of their own: encoding/json (since Go 1.24)
// puts the embedded struct's Go name in the path, which no body has.
func TestDecodeJSONTypeErrorThroughEmbedded(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"hits":"x"}`, "hits"},
		{`{"type":1}`, "type"},
		{`{"tags":{"a":"x"}}`, "tags"},
		{`{"events":[{},{"hits":"x"}]}`, "events.hits"},
		{`{"events":[{"type":"a","tags":{"a":true}}]}`, "events.tags"},
		{`{"byKey":{"k":{"hits":[1]}}}`, "byKey.hits"},
	} {
		decode := func(dst any) *Error {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			return DecodeJSON(r, dst)
		}
		embedded, flat := decode(&typeBatch{}), decode(&flatBatch{})
		if embedded == nil || len(embedded.Details) != 1 || embedded.Details[0].Field != tc.want {
			t.Errorf("%s: %+v, want the field %q", tc.body, embedded, tc.want)
			continue
		}
		if !reflect.DeepEqual(embedded, flat) {
			t.Errorf("%s: %+v through embedded structs, %+v without", tc.body, embedded, flat)
		}
	}
}
