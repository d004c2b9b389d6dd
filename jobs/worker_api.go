package jobs

// The worker API's wire: what a remote worker (RemoteStore) and serve
// (handlers/internalapi.WorkerAPI) say to each other.
//
// Version 1 is the only version, and the shape workers spoke before
// versions were named: the job, the project and a turn's result under their
// Go field names (model.JobRecord, model.ProjectRecord, ResultRecord), the
// rest under the tags below. A worker sends WorkerAPIVersion in
// WorkerAPIHeader on every call and checks, at Hello, the version serve
// says it speaks (none said: an older serve, version 1). Serve takes calls
// without the header as version 1, so workers of the previous release are
// understood, and refuses any other version it does not speak with a 400
// that names both. A new shape is a new version: new types beside these,
// never a renamed tag.

import (
	"errors"
	"fmt"

	"github.com/folio-docs/folio/agent"
	"github.com/folio-docs/folio/doccheck"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// WorkerAPIPath is where serve answers remote workers: the internal API
// behind RemoteStore, one POST per Store method, authorised by
// FOLIO_WORKER_TOKEN. It is not part of the public API.
const WorkerAPIPath = "/internal/worker/"

// WorkerAPIVersion is the version of the worker API this Folio speaks.
const WorkerAPIVersion = 1

// WorkerAPIHeader carries the version a worker's call is in.
const WorkerAPIHeader = "Folio-Worker-API"

// ErrWorkerToken means serve refused the worker token (or accepts none).
var ErrWorkerToken = errors.New("serve refused the worker token")

// ErrWorkerAPIVersion means serve and the worker speak different versions
// of the worker API: they are of releases too far apart.
var ErrWorkerAPIVersion = errors.New("worker API versions differ")

// WorkerAPIVersionError is the refusal of a call in a version serve does
// not speak.
func WorkerAPIVersionError(sent string) string {
	return fmt.Sprintf("This serve speaks version %d of the worker API; the worker sent version %q. Run the same Folio release on serve and its workers.", WorkerAPIVersion, sent)
}

// The internal API's bodies: one request type per Store method.
type (
	// ServerInfo is serve's answer to a worker starting up.
	ServerInfo struct {
		BaseURL   string `json:"baseUrl"`             // FOLIO_BASE_URL, for the links a run hands out
		WorkerAPI int    `json:"workerApi,omitempty"` // WorkerAPIVersion; absent from serves before it, which speak 1
	}
	ClaimRequest struct {
		Run     tasks.AgentRun `json:"run"`
		Owner   string         `json:"owner"`
		LeaseMs int64          `json:"leaseMs"`
	}
	// ClaimResponse also carries, once claimed, what the run reads next
	// (its project and history), so a pickup costs one round trip.
	ClaimResponse struct {
		OK      bool                 `json:"ok"`
		Job     model.JobRecord      `json:"job"`
		Project *model.ProjectRecord `json:"project,omitempty"`
		History []agent.Message      `json:"history,omitempty"`
	}
	LeaseRequest struct {
		JobID   string `json:"jobId"`
		Owner   string `json:"owner"`
		LeaseMs int64  `json:"leaseMs,omitempty"`
	}
	OKResponse struct {
		OK bool `json:"ok"`
	}
	ProjectRequest struct {
		ProjectID string `json:"projectId"`
	}
	HistoryRequest struct {
		JobID string `json:"jobId"`
		Turn  int    `json:"turn"`
	}
	MessageRequest struct {
		JobID   string        `json:"jobId"`
		Turn    int           `json:"turn"`
		Owner   string        `json:"owner"`
		Message agent.Message `json:"message"`
	}
	// UsageRequest's fields after tokens came with issue 26: left out when
	// zero (or unknown), so a request without them is the one a worker of
	// before sent; serve takes the cost of such a run as unknown.
	UsageRequest struct {
		JobID      string `json:"jobId"`
		Steps      int    `json:"steps"`
		Tokens     int64  `json:"tokens"`
		Input      int64  `json:"input,omitzero"`
		Output     int64  `json:"output,omitzero"`
		Cached     int64  `json:"cached,omitzero"`
		CacheWrite int64  `json:"cacheWrite,omitzero"`
		CostMicros *int64 `json:"costMicros,omitempty"`
	}
	FinishRequest struct {
		JobID  string       `json:"jobId"`
		Owner  string       `json:"owner"`
		Result ResultRecord `json:"result"`
	}
	FailRequest struct {
		JobID   string `json:"jobId"`
		Owner   string `json:"owner"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
)

// ResultRecord is a turn's agent.Result on the wire, under the Go field
// names it was sent with untagged; frozen, as model.JobRecord's are.
type ResultRecord struct {
	PRLink  string `json:"PRLink"`
	Changed bool   `json:"Changed"`
	Steps   int    `json:"Steps"`
	Tokens  int64  `json:"Tokens"`
	// Added with issue 26: left out when zero, so a run without them sends
	// the bytes it always did; a worker from before sends none (zero).
	Usage          agent.Usage        `json:"Usage,omitzero"`
	LargestRequest int64              `json:"LargestRequest,omitzero"`
	CostMicros     *int64             `json:"CostMicros,omitempty"`
	Summary        string             `json:"Summary"`
	Problems       []doccheck.Problem `json:"Problems"`
}

// RecordOf is res as it is sent.
func RecordOf(res agent.Result) ResultRecord { return ResultRecord(res) }

// Result is the result the record holds.
func (r ResultRecord) Result() agent.Result { return agent.Result(r) }

// ForWorker is the project as a remote worker may see it: without the
// webhook's URL and secret, which only serve uses.
func ForWorker(p model.Project) model.ProjectRecord {
	p.WebhookURL, p.WebhookSecret = "", ""
	return p.Record()
}

// UsageRequestOf is a run's usage as a worker sends it.
func UsageRequestOf(jobID string, u model.RunUsage) UsageRequest {
	return UsageRequest{JobID: jobID, Steps: u.Steps, Tokens: u.Tokens, Input: u.Input, Output: u.Output,
		Cached: u.Cached, CacheWrite: u.CacheWrite, CostMicros: u.CostMicros}
}

// Usage is the run's usage the request carries.
func (r UsageRequest) Usage() model.RunUsage {
	return model.RunUsage{Steps: r.Steps, Tokens: r.Tokens, Input: r.Input, Output: r.Output,
		Cached: r.Cached, CacheWrite: r.CacheWrite, CostMicros: r.CostMicros}
}
