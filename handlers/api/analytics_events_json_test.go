package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The hand-read events batch equals what encoding/json reads, and every
// body outside its usual shape is left to encoding/json.
func TestFastEventsMatchesEncodingJSON(t *testing.T) {
	same := []string{
		`{"events":[]}`,
		`{"events":[{"path":"/a","timestamp":"2026-02-01T10:00:00Z","userAgent":"Mozilla/5.0 (X11)","ip":"192.0.2.1"}]}`,
		" {\n \"events\" : [ { \"path\" : \"/a\" , \"ip\":\"::1\" } ,{\"visitorId\":\"u\",\"accept\":\"text/markdown\",\"path\":\"/b\"} ] } \n",
		`{"events":[{"userAgent":"quote \" backslash \\ unicode \u00e9 \ud83d\ude00 slash \/","path":"/é"}]}`,
		`{"events":[{"path":"/a","path":"/b"}]}`,
		`{"events":[{}]}`,
	}
	for _, body := range same {
		events, ok := fastEvents([]byte(body))
		if !ok {
			t.Errorf("fastEvents declined %s", body)
			continue
		}
		var want eventsRequest
		dec := json.NewDecoder(bytes.NewReader([]byte(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v on %s", err, body)
		}
		if !reflect.DeepEqual(events, want.Events) {
			t.Errorf("%s: fast %+v, encoding/json %+v", body, events, want.Events)
		}
	}
	declined := []string{
		``, `[]`, `{}`, `{"events":null}`, `{"Events":[]}`, `{"events":[{"Path":"/a"}]}`, `{"events":[{"path":1}]}`,
		`{"events":[{"path":null}]}`, `{"events":[{"zz":"x"}]}`, `{"events":[],"more":1}`, `{"events":[]} x`,
		`{"events":[{"path":"/a"},]}`, `{"events":[{"path":"/a"}`, "{\"events\":[{\"path\":\"a\x01\"}]}", "{\"events\":[{\"path\":\"/\xff\"}]}",
	}
	for _, body := range declined {
		if events, ok := fastEvents([]byte(body)); ok {
			t.Errorf("fastEvents read %q as %+v, want it left to encoding/json", body, events)
		}
	}
}
