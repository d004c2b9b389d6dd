package httpx

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// QueryOf returns the request's query once each of the named parameters,
// when present, has exactly one value that is not empty: "?limit=" and
// "?limit=5&limit=6" are malformed parameters, not absent ones, and a
// silent default would hide the client's mistake.
func QueryOf(r *http.Request, names ...string) (url.Values, *Error) {
	q := r.URL.Query()
	for _, name := range names {
		vs, present := q[name]
		switch {
		case !present:
		case len(vs) != 1:
			return nil, InvalidField(name, fmt.Sprintf("Parameter %q is given %d times; give it once.", name, len(vs)))
		case vs[0] == "":
			return nil, InvalidField(name, fmt.Sprintf("Parameter %q is empty; give a value or leave it out.", name))
		}
	}
	return q, nil
}

// OnlyQuery is QueryOf for an endpoint that takes no parameter but names:
// an unknown one is refused, naming it (a misspelt "datefrom" must not
// silently give the unbounded answer).
func OnlyQuery(r *http.Request, names ...string) (url.Values, *Error) {
	for name := range r.URL.Query() {
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("Unknown query parameter %q; this endpoint takes %s.", name, strings.Join(names, ", "))
		for _, known := range names {
			if strings.EqualFold(name, known) {
				msg = fmt.Sprintf("Unknown query parameter %q; did you mean %q? (Names are case-sensitive.)", name, known)
			}
		}
		return nil, InvalidField(name, msg)
	}
	return QueryOf(r, names...)
}
