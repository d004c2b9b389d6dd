package agent

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens (that is,
// in millionths of a dollar per token): the prompt's tokens, those read
// from the provider's prompt cache, those written to it, and the
// completion's.
type Price struct {
	Input, Cached, Output, CacheWrite float64
}

// ParsePrices reads prices as FOLIO_MODEL_PRICES gives them: entries
// "model=input/output/cached" or "model=input/output/cached/cache-write"
// separated by commas or
// semicolons, in dollars per million tokens. Without a cache-write price,
// writing to the cache costs what input does (OpenAI charges nothing more;
// Anthropic 1.25 times input, which is then given).
func ParsePrices(s string) (map[string]Price, error) {
	prices := map[string]Price{}
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, values, ok := strings.Cut(entry, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not model=input/output/cached", entry)
		}
		parts := strings.Split(values, "/")
		if len(parts) != 3 && len(parts) != 4 {
			return nil, fmt.Errorf("%q: want input/output/cached or input/output/cached/cache-write, in dollars per million tokens", entry)
		}
		var n []float64
		for _, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("%q: %q is not a price in dollars per million tokens", entry, p)
			}
			n = append(n, f)
		}
		price := Price{Input: n[0], Output: n[1], Cached: n[2], CacheWrite: n[0]}
		if len(n) == 4 {
			price.CacheWrite = n[3]
		}
		if _, dup := prices[name]; dup {
			return nil, fmt.Errorf("model %q is priced twice", name)
		}
		prices[name] = price
	}
	return prices, nil
}

// Dollars is what u cost at p.
func (p Price) Dollars(u Usage) float64 { return float64(p.micros(u)) / 1e6 }

// micros is what u cost at p, in millionths of a dollar.
func (p Price) micros(u Usage) int64 {
	plain := max(u.Input-u.Cached-u.CacheWrite, 0)
	return int64(math.Round(float64(plain)*p.Input + float64(u.Cached)*p.Cached + float64(u.CacheWrite)*p.CacheWrite + float64(u.Output)*p.Output))
}

// cost is what a run of model that used u cost, in millionths of a dollar;
// nil when the model has no price configured.
func (a *Agent) cost(model string, u Usage) *int64 {
	p, ok := a.cfg.Prices[model]
	if !ok {
		return nil
	}
	c := p.micros(u)
	return &c
}
