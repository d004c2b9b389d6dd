package eval

import (
	"math"
	"testing"

	"github.com/folio-docs/folio/agent"
)

// TestMeterReadsBothProviders checks the usage the suite reports against
// answers in OpenAI's and Anthropic's shapes, cache included.
func TestMeterReadsBothProviders(t *testing.T) {
	m, err := newMeter(Model{BaseURL: "http://127.0.0.1:1", Price: &agent.Price{Input: 3, Output: 15, Cached: 0.3, CacheWrite: 3.75}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// OpenAI: prompt_tokens counts the cached ones.
	m.read([]byte(`{"usage":{"prompt_tokens":1000,"completion_tokens":50,"prompt_tokens_details":{"cached_tokens":800}}}`))
	// Anthropic: input_tokens counts neither cache reads nor writes.
	m.read([]byte(`{"usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":900,"cache_creation_input_tokens":500}}`))
	m.read([]byte(`not json`))
	u := m.Usage()
	want := Usage{Calls: 2, Input: 2500, Output: 70, CacheRead: 1700, CacheWrite: 500, LargestRequest: 1500, CostKnown: true}
	// 300 fresh at $3, 1,700 read at $0.30, 500 written at $3.75, 70 out at $15, per million.
	wantCost := (300*3 + 1700*0.3 + 500*3.75 + 70*15) / 1e6
	got := u
	got.Cost = 0
	if got != want || math.Abs(u.Cost-wantCost) > 1e-6 {
		t.Fatalf("usage = %+v, want %+v and cost %.6f", u, want, wantCost)
	}
}
