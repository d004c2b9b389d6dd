package analytics

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// The generator's people come from search engines, AI assistants, social
// networks, other sites and nowhere in about the shares it documents, as
// the referrer lists class them; crawlers and agents send no referrer; the
// same seed gives the same traffic.
func TestGeneratorReferrers(t *testing.T) {
	refs, err := EmbeddedReferrerClassifier()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := GenConfig{Views: 40000, Paths: 100, Visitors: 4000, From: start, To: start.AddDate(0, 1, 0), Seed: 7}
	g, again := NewGenerator(cfg), NewGenerator(cfg)
	cls := newTestClassifier(t)
	people := 0
	channels := map[Channel]int{}
	others := map[string]bool{}
	for {
		e, ok := g.Next()
		e2, _ := again.Next()
		if !ok {
			break
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("one seed, two events: %+v and %+v", e, e2)
		}
		if cls.Classify(Input{UserAgent: e.UserAgent, Path: e.Path, Accept: e.Accept}) != Human {
			if e.Referrer != "" && !slices.Contains(genHumans, e.UserAgent) {
				t.Fatalf("a crawler's or agent's view has the referrer %q", e.Referrer)
			}
			continue
		}
		people++
		r := refs.Classify(e.Referrer, "", nil)
		channels[r.Channel]++
		if r.Channel == OtherReferrer {
			others[r.Source] = true
		}
	}
	for _, w := range []struct {
		c      Channel
		lo, hi float64
	}{{Search, 0.37, 0.43}, {AIAssistant, 0.04, 0.06}, {Social, 0.04, 0.06}, {OtherReferrer, 0.08, 0.12}, {Direct, 0.37, 0.43}} {
		if share := float64(channels[w.c]) / float64(people); share < w.lo || share > w.hi {
			t.Errorf("%s: %.3f of %d people's views, want %.2f to %.2f", w.c, share, people, w.lo, w.hi)
		}
	}
	if len(others) < 100 {
		t.Errorf("people came from %d other sites, want a few hundred", len(others))
	}
}
