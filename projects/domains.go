package projects

import (
	"regexp"
	"strings"

	"github.com/folio-docs/folio/model"
)

// FieldAllowedDomains names the hosts whose pages may send analytics.
const FieldAllowedDomains = "allowed_domains"

var hostname = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[0-9]{1,5})?$`)

// normaliseDomains reads the hosts allowed to send analytics as a person
// types them, separated by commas or white space in any case, into the
// stored form: lower-cased, without repeats, joined by commas. The first
// that is not a host name is refused and left out.
func normaliseDomains(p *model.Project) model.FieldErrors {
	seen := map[string]bool{}
	var domains []string
	var errs model.FieldErrors
	for _, f := range strings.FieldsFunc(p.AllowedDomains, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		h := strings.ToLower(f)
		if !hostname.MatchString(h) {
			if len(errs) == 0 {
				errs = model.FieldErrors{{Field: FieldAllowedDomains, Message: "“" + f + "” is not a host name, such as docs.example.com or *.example.com."}}
			}
			continue
		}
		if !seen[h] {
			seen[h] = true
			domains = append(domains, h)
		}
	}
	p.AllowedDomains = strings.Join(domains, ",")
	return errs
}
