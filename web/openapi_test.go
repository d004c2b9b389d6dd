package main

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/handlers/api"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
)

// apiAnswers is, for each JSON answer /openapi.json documents ("METHOD
// path status"), the Go type its handler encodes. An answer documented as
// Error is an httpx.Error unless named here.
var apiAnswers = map[string]reflect.Type{
	"POST /v2/agent/{projectId}/job 201":                   reflect.TypeFor[jobs.Job](),
	"GET /v2/agent/{projectId}/job/{id} 200":               reflect.TypeFor[jobs.Job](),
	"POST /v2/agent/{projectId}/job/{id}/message 200":      reflect.TypeFor[jobs.Job](),
	"POST /v2/agent/{projectId}/job/{id}/archive 200":      reflect.TypeFor[jobs.Job](),
	"POST /v2/agent/{projectId}/job/{id}/cancel 200":       reflect.TypeFor[jobs.Job](),
	"POST /v2/agent/{projectId}/job/{id}/merge 200":        reflect.TypeFor[jobs.Job](),
	"GET /v2/agent/{projectId}/jobs 200":                   reflect.TypeFor[api.JobList](),
	"GET /v2/agent/{projectId}/models 200":                 reflect.TypeFor[api.ModelList](),
	"GET /v2/agent/{projectId}/job/{id}/changes 200":       reflect.TypeFor[codehost.Changes](),
	"GET /v2/agent/{projectId}/job/{id}/messages 200":      reflect.TypeFor[api.MessageList](),
	"GET /v1/analytics/{projectId}/visitors 200":           reflect.TypeFor[analytics.Visitors](),
	"GET /v1/analytics/{projectId}/views 200":              reflect.TypeFor[analytics.Views](),
	"GET /v1/analytics/{projectId}/agents 200":             reflect.TypeFor[analytics.Agents](),
	"GET /v1/analytics/{projectId}/referrers 200":          reflect.TypeFor[analytics.Referrers](),
	"GET /v1/analytics/{projectId}/searches 200":           reflect.TypeFor[analytics.Searches](),
	"GET /v1/analytics/{projectId}/feedback 200":           reflect.TypeFor[analytics.FeedbackExport](),
	"GET /v1/analytics/{projectId}/feedback/by-page 200":   reflect.TypeFor[analytics.FeedbackByPage](),
	"POST /v1/analytics/{projectId}/events 200":            reflect.TypeFor[api.EventsAccepted](),
	"POST /v1/analytics/{projectId}/drains/vercel 200":     reflect.TypeFor[api.DrainAccepted](),
	"POST /v1/analytics/{projectId}/drains/netlify 200":    reflect.TypeFor[api.DrainAccepted](),
	"POST /v1/analytics/{projectId}/drains/cloudflare 200": reflect.TypeFor[api.DrainAccepted](),
	"GET /readyz 503":       reflect.TypeFor[api.NotReady](),
	"GET /openapi.json 200": nil, // free-form: the document itself
	"GET /healthz 200":      nil, // free-form: {"status": "ok"}
	"GET /readyz 200":       nil, // free-form: status and checks
}

// apiAnswerGaps are where an answer is known to differ from its schema, as
// "sent, not documented" and "documented, never sent" fields. Issue 23
// changes no answer, the document included; each is there to be fixed.
var apiAnswerGaps = map[string][2][]string{
	"GET /readyz 503": {{"checks"}, {"details", "requestId"}},
}

// Every public route is in /openapi.json and no internal one is, and each
// JSON answer documented has the JSON fields of the Go type its handler
// encodes, at every depth the schema describes.
func TestOpenAPISchemasAreTheGoTypes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	resp, err := http.Get(s.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Paths) == 0 {
		t.Fatalf("GET /openapi.json: %v %.200s", err, raw)
	}
	resolve := func(schema map[string]any) (map[string]any, string) {
		if r, ok := schema["$ref"].(string); ok {
			name := strings.TrimPrefix(r, "#/components/schemas/")
			return doc.Components.Schemas[name], name
		}
		return schema, ""
	}

	used := map[string]bool{}
	internal := 0
	err = s.app.router().Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := route.GetPathTemplate()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(path, jobs.WorkerAPIPath) || strings.HasPrefix(path, "/git/") {
			internal++
			if doc.Paths[path] != nil {
				t.Errorf("/openapi.json documents %s, an internal route", path)
			}
			return nil
		}
		methods, err := route.GetMethods()
		if err != nil || !isAPIPath(path) {
			return nil
		}
		for _, m := range methods {
			op := doc.Paths[path][strings.ToLower(m)]
			if op == nil {
				t.Errorf("route %s %s is not in /openapi.json", m, path)
				continue
			}
			responses, _ := op["responses"].(map[string]any)
			for status, r := range responses {
				content, _ := r.(map[string]any)["content"].(map[string]any)
				media, _ := content["application/json"].(map[string]any)
				if media == nil {
					continue
				}
				answer := m + " " + path + " " + status
				schema, name := resolve(media["schema"].(map[string]any))
				typ, known := apiAnswers[answer]
				switch {
				case known:
					used[answer] = true
				case name == "Error":
					typ = reflect.TypeFor[httpx.Error]()
				default:
					t.Errorf("%s: no Go type is named for its answer in apiAnswers", answer)
					continue
				}
				if typ == nil {
					if schema["properties"] != nil {
						t.Errorf("%s: documented with properties, listed as free-form", answer)
					}
					continue
				}
				var sent, unsent []string
				compareSchema(answer, schema, typ, resolve, &sent, &unsent)
				gap := apiAnswerGaps[answer]
				if !slices.Equal(sent, gap[0]) || !slices.Equal(unsent, gap[1]) {
					t.Errorf("%s (%s): sent but not documented %v, documented but not sent %v; known gaps %v", answer, typ, sent, unsent, gap)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if internal < 2 {
		t.Errorf("%d internal routes walked, want the worker API and git's", internal)
	}
	for path := range doc.Paths {
		if strings.HasPrefix(path, "/internal/") || strings.HasPrefix(path, "/git/") {
			t.Errorf("/openapi.json documents %s, an internal path", path)
		}
	}
	for answer := range apiAnswers {
		if !used[answer] {
			t.Errorf("apiAnswers names %s, which no route documents", answer)
		}
	}
}

// compareSchema adds to sent and unsent, as "field.sub" paths, the JSON
// fields of typ the object schema does not document and the properties it
// documents that typ does not have, then does the same below each
// property the schema describes further (an object's properties, an
// array's items).
func compareSchema(at string, schema map[string]any, typ reflect.Type, resolve func(map[string]any) (map[string]any, string), sent, unsent *[]string) {
	compare(at, "", schema, typ, resolve, sent, unsent)
	slices.Sort(*sent)
	slices.Sort(*unsent)
}

func compare(at, prefix string, schema map[string]any, typ reflect.Type, resolve func(map[string]any) (map[string]any, string), sent, unsent *[]string) {
	schema, _ = resolve(schema)
	// A union of object shapes is one Go type with the fields of them all.
	if branches, ok := schema["oneOf"].([]any); ok {
		props := map[string]any{}
		for _, b := range branches {
			branch, _ := resolve(b.(map[string]any))
			maps.Copy(props, branch["properties"].(map[string]any))
		}
		schema = map[string]any{"properties": props}
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if items, ok := schema["items"].(map[string]any); ok && typ.Kind() == reflect.Slice {
		compare(at, prefix, items, typ.Elem(), resolve, sent, unsent)
		return
	}
	props, ok := schema["properties"].(map[string]any)
	if !ok || typ.Kind() != reflect.Struct || typ == reflect.TypeFor[time.Time]() {
		return // a leaf, or a free-form value
	}
	fields := jsonFields(typ)
	for name, ft := range fields {
		p, documented := props[name].(map[string]any)
		if !documented {
			*sent = append(*sent, prefix+name)
			continue
		}
		compare(at, prefix+name+".", p, ft, resolve, sent, unsent)
	}
	for name := range props {
		if _, ok := fields[name]; !ok {
			*unsent = append(*unsent, prefix+name)
		}
	}
}

// jsonFields is what encoding/json writes of a struct type: each field's
// JSON name and type, embedded structs' fields included, "-" left out.
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range typ.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for n, t := range jsonFields(f.Type) {
				if _, shadowed := out[n]; !shadowed {
					out[n] = t
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
