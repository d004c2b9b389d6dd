package dashboard

import (
	"net/http"
	"strconv"

	"github.com/folio-docs/folio/handlers/httpx"
)

// pageRefusal is a page's answer to an error a domain refused a form with:
// the contract's status for it (httpx.StatusOf, the API's own mapping;
// fields refused are a 422, as every refused form here) and what words
// says of it to people. An error words has nothing to say of is a 500,
// its cause for the log.
func pageRefusal(err error, words func(error) string) (int, string) {
	status, _, _ := httpx.StatusOf(err)
	msg := words(err)
	if msg == "" || status == http.StatusInternalServerError {
		return http.StatusInternalServerError, ""
	}
	if status == http.StatusBadRequest {
		status = http.StatusUnprocessableEntity
	}
	return status, msg
}

// thousands writes n with thousands separators, as a page's sentence does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
