package analytics

import (
	"slices"
	"testing"

	"github.com/folio-docs/folio/metrics"
)

// The class labels metrics exposes at 0 are the classes' names, and
// "unknown", the one countIngested uses when a batch does not say.
func TestViewClassesAreTheClasses(t *testing.T) {
	var want []string
	for c := range numClasses {
		want = append(want, c.String())
	}
	want = append(want, "unknown")
	if !slices.Equal(metrics.ViewClasses, want) {
		t.Errorf("metrics.ViewClasses = %q, want %q", metrics.ViewClasses, want)
	}
}
