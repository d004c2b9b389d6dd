package analytics

import (
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
