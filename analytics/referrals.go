package analytics

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/folio-docs/folio/model"
)

// referralBatch classes the referrers of one batch of a project's events.
// The project's own domains (its allowed domains) are read once, and only
// when a referrer is not the page's own host: most are.
type referralBatch struct {
	s         *Service
	projectID string
	domains   []string
	loaded    bool
}

func (s *Service) referrals(projectID string) *referralBatch {
	return &referralBatch{s: s, projectID: projectID}
}

// of is where e came from, as stored: direct (the zero ViewReferral) when
// it has no referrer, or one from the site itself. Without a referrer, a
// utm_source naming an AI assistant, a search engine or a social network
// (utm_source=chatgpt.com) is where it came from.
func (b *referralBatch) of(ctx context.Context, e Event) (model.ViewReferral, error) {
	if e.Referrer == "" && e.UTMSource == "" {
		return model.ViewReferral{}, nil
	}
	refs, err := EmbeddedReferrerClassifier()
	if err != nil {
		return model.ViewReferral{}, fmt.Errorf("analytics: the referrer lists: %w", err)
	}
	if e.Referrer == "" {
		r := refs.Classify("https://"+e.UTMSource+"/", "", nil)
		if r.Channel == Direct || r.Channel == OtherReferrer {
			return model.ViewReferral{}, nil // a campaign's name, not a site a list names
		}
		return model.ViewReferral{Source: r.Source, Channel: r.Channel.String(), Name: r.Name}, nil
	}
	r := refs.Classify(e.Referrer, e.Host, nil)
	if r.Channel == Direct {
		return model.ViewReferral{}, nil
	}
	if !b.loaded {
		p, err := b.s.db.ProjectByID(ctx, b.projectID)
		switch {
		case errors.Is(err, model.ErrNotFound):
			// The site alone (an import's tests): it names no domains.
		case err != nil:
			return model.ViewReferral{}, err
		default:
			b.domains = strings.Split(p.AllowedDomains, ",")
		}
		b.loaded = true
	}
	if len(b.domains) > 0 {
		r = refs.Classify(e.Referrer, e.Host, b.domains)
	}
	if r.Channel == Direct {
		return model.ViewReferral{}, nil
	}
	return model.ViewReferral{Source: r.Source, Channel: r.Channel.String(), Name: r.Name}, nil
}

// utmSource is the utm_source of a request target's query ("/a?utm_source=
// chatgpt.com"), lower case, "" when it has none or it is not a host name.
func utmSource(target string) string {
	_, query, ok := strings.Cut(target, "?")
	if !ok {
		return ""
	}
	query, _, _ = strings.Cut(query, "#")
	values, _ := url.ParseQuery(query) // what parses of a query half broken
	src := strings.ToLower(strings.TrimSpace(values.Get("utm_source")))
	if len(src) > 253 || strings.ContainsAny(src, "/?#@: ") || !strings.Contains(src, ".") {
		return ""
	}
	return src
}
