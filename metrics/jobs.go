package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/folio-docs/folio/model"
)

// JobCounter counts the jobs in each status (db.DB.JobsByStatus).
type JobCounter interface {
	JobsByStatus(ctx context.Context) (map[string]int64, error)
}

var jobsDesc = prometheus.NewDesc("folio_jobs", "Jobs per status, read from the database when scraped.", []string{"status"}, nil)

// jobsCollector reads folio_jobs from the database at each scrape, so it is
// right whichever process changed a job.
type jobsCollector struct{ db JobCounter }

// NewJobsCollector reports folio_jobs{status} from db.
func NewJobsCollector(db JobCounter) prometheus.Collector { return jobsCollector{db} }

func (c jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

func (c jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.db.JobsByStatus(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(jobsDesc, err)
		return
	}
	// Every status, 0 included, so a query over a status never finds it missing.
	for _, s := range model.JobStatuses() {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(counts[s.String()]), s.String())
	}
}
