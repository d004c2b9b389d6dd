package analytics

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/model"
)

// Limits on feedback's fields, in characters.
const (
	MaxCommentLen  = 2000
	MaxCodeLen     = 10_000
	maxFilenameLen = 255
	maxLangLen     = 64
)

// parseFeedback checks a feedback event: the page, whether it helped
// (optional on a code snippet's feedback only), the source, an optional
// comment and contact e-mail, and for a code snippet its code, filename
// and language.
func parseFeedback(r RawEvent, at time.Time, field func(name, format string, args ...any)) (model.Feedback, bool) {
	ok := !at.IsZero()
	bad := func(name, format string, args ...any) {
		ok = false
		field(name, format, args...)
	}
	path, msg := normalizePath(r.Path)
	if msg != "" {
		bad("path", "%s", msg)
	}
	source := model.FeedbackSource(r.Source)
	switch {
	case r.Source == "":
		bad("source", "The source is required: contextual, thumbs_only, code_snippet or agent.")
	case !source.Valid():
		bad("source", "Unknown source %q; the sources are contextual, thumbs_only, code_snippet and agent.", r.Source)
	}
	if r.Helpful == nil && source != model.FeedbackCodeSnippet {
		bad("helpful", "helpful is required: true if the page helped, false if not.")
	}
	// A text is kept trimmed, but code as written: its indentation is its own.
	text := func(name, s string, max int) string {
		if name != "code" {
			s = strings.TrimSpace(s)
		}
		switch {
		case !utf8.ValidString(s):
			bad(name, "The %s must be valid UTF-8.", name)
		case utf8.RuneCountInString(s) > max:
			bad(name, "The %s is longer than %d characters.", name, max)
		}
		return s
	}
	f := model.Feedback{Path: path, Source: source, Helpful: r.Helpful, Status: model.FeedbackPending, CreatedAt: at.Truncate(time.Millisecond).UTC(),
		Comment: text("comment", r.Comment, MaxCommentLen), Contact: strings.TrimSpace(r.Contact)}
	if f.Contact != "" && !accounts.ValidEmail(f.Contact) {
		bad("contact", "The contact must be an e-mail address, such as ada@example.com.")
	}
	if source == model.FeedbackCodeSnippet {
		f.Code = text("code", r.Code, MaxCodeLen)
		if strings.TrimSpace(f.Code) == "" {
			bad("code", "The code is required on a code snippet's feedback: the snippet it is about.")
		}
		f.Filename = text("filename", r.Filename, maxFilenameLen)
		f.Lang = text("lang", r.Lang, maxLangLen)
	} else {
		for _, extra := range []struct{ name, value string }{{"code", r.Code}, {"filename", r.Filename}, {"lang", r.Lang}} {
			if extra.value != "" {
				bad(extra.name, "Only a code snippet's feedback (source code_snippet) takes a %s.", extra.name)
			}
		}
	}
	return f, ok
}

// FeedbackRow is one feedback in the feedback export, in Mintlify's two
// shapes: a page's (helpful and contact) or a code snippet's (code,
// filename, lang); an optional text not given is null.
type FeedbackRow struct {
	ID        string  `json:"id"`
	Path      string  `json:"path"`
	Comment   *string `json:"comment"`
	CreatedAt Stamp   `json:"createdAt"`
	Source    string  `json:"source"`
	Status    string  `json:"status"`
	Helpful   *bool   `json:"helpful,omitempty"`
	Contact   *string `json:"contact,omitempty"`
	Code      *string `json:"code,omitempty"`
	Filename  *string `json:"filename,omitempty"`
	Lang      *string `json:"lang,omitempty"`
}

// MarshalJSON writes the row in its source's shape, every field of the
// shape present (null where there is nothing).
func (r FeedbackRow) MarshalJSON() ([]byte, error) {
	type common struct {
		ID        string  `json:"id"`
		Path      string  `json:"path"`
		Comment   *string `json:"comment"`
		CreatedAt Stamp   `json:"createdAt"`
		Source    string  `json:"source"`
		Status    string  `json:"status"`
	}
	c := common{r.ID, r.Path, r.Comment, r.CreatedAt, r.Source, r.Status}
	if r.Source == string(model.FeedbackCodeSnippet) {
		return json.Marshal(struct {
			common
			Code     string  `json:"code"`
			Filename *string `json:"filename"`
			Lang     *string `json:"lang"`
		}{c, deref(r.Code), r.Filename, r.Lang})
	}
	return json.Marshal(struct {
		common
		Helpful bool    `json:"helpful"`
		Contact *string `json:"contact"`
	}{c, r.Helpful != nil && *r.Helpful, r.Contact})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// orNull is s, or nil for "".
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FeedbackRowOf is a feedback as the export shows it.
func FeedbackRowOf(f model.Feedback) FeedbackRow {
	r := FeedbackRow{ID: f.ID, Path: f.Path, Comment: orNull(f.Comment), CreatedAt: Stamp(f.CreatedAt), Source: string(f.Source), Status: string(f.Status)}
	if f.Source == model.FeedbackCodeSnippet {
		r.Code, r.Filename, r.Lang = &f.Code, orNull(f.Filename), orNull(f.Lang)
	} else {
		r.Helpful, r.Contact = f.Helpful, orNull(f.Contact)
	}
	return r
}

// FeedbackExport is the feedback export: newest first, the next page's
// cursor (null on the last) and whether there is one.
type FeedbackExport struct {
	Feedback   []FeedbackRow `json:"feedback"`
	NextCursor *string       `json:"nextCursor"`
	HasMore    bool          `json:"hasMore"`
}

// Feedback answers the feedback export (CONTRACT §3).
func (s *Service) Feedback(ctx context.Context, projectID string, q FeedbackQuery) (FeedbackExport, error) {
	out := FeedbackExport{Feedback: []FeedbackRow{}}
	list, next, err := s.FeedbackList(ctx, projectID, q)
	if err != nil {
		return out, err
	}
	for _, f := range list {
		out.Feedback = append(out.Feedback, FeedbackRowOf(f))
	}
	out.NextCursor, out.HasMore = next, next != nil
	return out, nil
}

// FeedbackList is a page of the feedback q picks, newest first, and the
// next page's cursor (nil on the last): the feedback export's, and the
// dashboard's.
func (s *Service) FeedbackList(ctx context.Context, projectID string, q FeedbackQuery) ([]model.Feedback, *string, error) {
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return nil, nil, err
	}
	f := q.filter()
	if f.From >= f.To {
		return nil, nil, nil
	}
	list, err := s.db.FeedbackList(ctx, st.id, f, q.After, q.Limit+1)
	if err != nil || len(list) <= q.Limit {
		return list, nil, err
	}
	list = list[:q.Limit]
	last := list[len(list)-1]
	return list, keyCursor(model.FeedbackKey{At: last.CreatedAt.UnixMilli(), ID: last.ID}), nil
}

// FeedbackPageRow is one page's feedback in the by-page export: ratings
// of the page (thumbs up and down, code snippets' aside), code snippets'
// feedback, and all of it.
type FeedbackPageRow struct {
	Path       string `json:"path"`
	ThumbsUp   int    `json:"thumbsUp"`
	ThumbsDown int    `json:"thumbsDown"`
	Code       int    `json:"code"`
	Total      int    `json:"total"`
}

// FeedbackByPage is the feedback by page export: pages by total
// descending (then path), whether more follows and the next page's cursor
// (beside Mintlify's fields, which page by hasMore alone).
type FeedbackByPage struct {
	Feedback   []FeedbackPageRow `json:"feedback"`
	HasMore    bool              `json:"hasMore"`
	NextCursor *string           `json:"nextCursor"`
}

// FeedbackByPage answers the feedback by page export (CONTRACT §3).
func (s *Service) FeedbackByPage(ctx context.Context, projectID string, q FeedbackQuery) (FeedbackByPage, error) {
	out := FeedbackByPage{Feedback: []FeedbackPageRow{}}
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return out, err
	}
	f := q.filter()
	if f.From >= f.To {
		return out, nil
	}
	pages, err := s.db.FeedbackByPage(ctx, st.id, f, q.Limit+1, q.Offset)
	if err != nil {
		return out, err
	}
	if len(pages) > q.Limit {
		pages = pages[:q.Limit]
		out.HasMore, out.NextCursor = true, offsetCursor(cursorFeedbackPage, q.Offset+q.Limit)
	}
	for _, p := range pages {
		out.Feedback = append(out.Feedback, FeedbackPageRow(p))
	}
	return out, nil
}

// FeedbackStatusCounts counts the feedback q picks, whatever its status,
// by status: the dashboard's filter shows them.
func (s *Service) FeedbackStatusCounts(ctx context.Context, projectID string, q FeedbackQuery) (map[model.FeedbackStatus]int, error) {
	st, err := s.site(ctx, projectID, false)
	if err != nil || st == nil {
		return map[model.FeedbackStatus]int{}, err
	}
	return s.db.FeedbackStatusCounts(ctx, st.id, q.filter())
}

// SetFeedbackStatus moves one of a project's feedback to status (an
// admin's review) and returns it, or is model.ErrFeedbackNotFound.
func (s *Service) SetFeedbackStatus(ctx context.Context, projectID, id string, status model.FeedbackStatus) (model.Feedback, error) {
	if !status.Valid() {
		return model.Feedback{}, model.Invalid("status", "Choose a status: pending, in_progress, resolved or dismissed.")
	}
	st, err := s.site(ctx, projectID, false)
	if err != nil {
		return model.Feedback{}, err
	}
	if st == nil {
		return model.Feedback{}, model.ErrFeedbackNotFound
	}
	return s.db.SetFeedbackStatus(ctx, st.id, id, status, time.Now())
}
