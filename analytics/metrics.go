package analytics

import (
	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
)

// countIngested counts the n views of a batch that were stored, by class.
// A batch that skipped log lines imported before does not say which it
// stored, so its stored views are counted under the class "unknown".
func countIngested(views []model.NewPageView, n int, source string) {
	if n == 0 {
		return
	}
	if n != len(views) {
		metrics.ViewsIngested("unknown", source, n)
		return
	}
	var per [numClasses]int
	for _, v := range views {
		if int(v.Class) < len(per) {
			per[v.Class]++
		}
	}
	for c, k := range per {
		metrics.ViewsIngested(Class(c).String(), source, k)
	}
}
