package api

import (
	"net/http"
	"strconv"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// List is GET /jobs: newest first, with limit (1–100, default 20), offset
// and an optional status filter.
func (h *Jobs) List(w http.ResponseWriter, r *http.Request) {
	q, e := httpx.QueryOf(r, "limit", "offset", "status")
	if e != nil {
		httpx.WriteError(w, r, e)
		return
	}
	limit, e := intParam(q.Get("limit"), "limit", 20, 1, 100)
	if e != nil {
		httpx.WriteError(w, r, e)
		return
	}
	offset, e := intParam(q.Get("offset"), "offset", 0, 0, 1<<31-1)
	if e != nil {
		httpx.WriteError(w, r, e)
		return
	}
	status := model.JobStatus(q.Get("status"))
	if status != "" && !status.Valid() {
		httpx.WriteError(w, r, httpx.InvalidField("status", "Parameter \"status\" must be one of active, completed, failed, archived."))
		return
	}
	list, more, err := h.svc.List(r.Context(), projectID(r), status, limit, offset)
	if err != nil {
		httpx.WriteDomainError(w, r, err)
		return
	}
	out := make([]jobs.Job, len(list))
	for i, j := range list {
		out[i] = h.svc.View(j)
	}
	httpx.WriteJSON(w, http.StatusOK, JobList{Jobs: out, HasMore: more})
}

// JobList is the answer of GET /jobs. (Fields in the order of their JSON
// names throughout: the bytes of the map these answers once were.)
type JobList struct {
	HasMore bool       `json:"hasMore"`
	Jobs    []jobs.Job `json:"jobs"`
}

// intParam parses an optional integer query parameter within [lo, hi].
func intParam(raw, name string, def, lo, hi int) (int, *httpx.Error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		return 0, httpx.InvalidField(name, "Parameter \""+name+"\" must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+".")
	}
	return n, nil
}
