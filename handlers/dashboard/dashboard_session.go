package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// Session keys.
const (
	userIDKey   = "userID"
	flashKey    = "flash"
	keptFormKey = "keptForm"
)

type userCtxKey struct{}

// currentUser is the signed-in admin, set by RequireUser (or LoadUser).
func currentUser(ctx context.Context) (model.User, bool) {
	u, ok := ctx.Value(userCtxKey{}).(model.User)
	return u, ok
}

// LoadUser puts the session's user, if any, in the request's context.
func (d *Dashboard) LoadUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := d.sessionUser(r)
		if err != nil {
			d.pageError(w, r, http.StatusInternalServerError, err)
			return
		}
		if u.ID != "" {
			r = r.WithContext(context.WithValue(r.Context(), userCtxKey{}, u))
		}
		next.ServeHTTP(w, r)
	})
}

// RequireUser sends a signed-out request for a page to /login, remembering
// where it was going. A form posted after the session expired is kept
// (keepForm), and sign-in leads back to the page it was sent from.
func (d *Dashboard) RequireUser(next http.Handler) http.Handler {
	return d.LoadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := currentUser(r.Context()); !ok {
			to := "/login"
			page := r.URL.RequestURI()
			if r.Method == http.MethodPost {
				page = d.keepForm(r)
			}
			if page != "/" {
				to += "?next=" + url.QueryEscape(page)
			}
			redirect(w, r, to)
			return
		}
		// A whole page takes the kept form (a boosted link is one); a part of
		// one asking for news (HX-Request alone) leaves it.
		if r.Method == http.MethodGet && (r.Header.Get("HX-Request") == "" || r.Header.Get("HX-Boosted") != "") {
			if fields := d.restoreForm(r); fields != nil {
				r = r.WithContext(context.WithValue(r.Context(), keptFormCtxKey{}, fields))
			}
		}
		next.ServeHTTP(w, r)
	}))
}

type keptFormCtxKey struct{}

// keptField is the text of field in the form kept across a sign-in for
// this page, if any: pages put it back in their form.
func keptField(ctx context.Context, field string) string {
	fields, _ := ctx.Value(keptFormCtxKey{}).(map[string]string)
	return fields[field]
}

// keptFields are the form fields kept across a sign-in: what a person
// types at length. Never a password or a secret: those are typed again.
var keptFields = []string{"prompt"}

// keptForm is a form posted while signed out, waiting in the session (on
// the server: its text never travels in a URL) for the page it came from.
type keptForm struct {
	Page   string            `json:"page"`
	Fields map[string]string `json:"fields,omitempty"`
}

// keepForm stores the text of a form posted after the session expired in
// the new, signed-out session, which sign-in keeps (RenewToken moves its
// data), and returns the page to come back to: the form's page. Protect
// has already refused a cross-site post, so another site cannot plant text.
func (d *Dashboard) keepForm(r *http.Request) string {
	k := keptForm{Page: formPage(r), Fields: map[string]string{}}
	for _, f := range keptFields {
		if v := r.PostFormValue(f); v != "" {
			k.Fields[f] = v
		}
	}
	b, err := json.Marshal(k)
	if err == nil {
		d.sessions.Put(r.Context(), keptFormKey, string(b))
	}
	return k.Page
}

// formPage is the page a form was posted from: the Referer when it is on
// this site, else the page its action belongs to (a job's page for its
// follow-up, cancel, archive and merge).
func formPage(r *http.Request) string {
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host && ref.Path != "" {
		if p := localPath(ref.RequestURI(), ""); p != "" && p != "/login" && p != "/signup" {
			return p
		}
	}
	p := r.URL.Path
	for _, action := range []string{"/message", "/cancel", "/archive", "/merge"} {
		if strings.HasPrefix(p, "/projects/") && strings.HasSuffix(p, action) {
			return strings.TrimSuffix(p, action)
		}
	}
	return p
}

// hasKeptForm reports whether a form waits for sign-in: the sign-in page
// then says the session expired.
func (d *Dashboard) hasKeptForm(r *http.Request) bool {
	return d.sessions.Exists(r.Context(), keptFormKey)
}

// restoreForm takes the form kept for the requested page, once, and leaves
// a notice saying so; a request for another page leaves it waiting.
func (d *Dashboard) restoreForm(r *http.Request) map[string]string {
	raw := d.sessions.GetString(r.Context(), keptFormKey)
	if raw == "" {
		return nil
	}
	var k keptForm
	if json.Unmarshal([]byte(raw), &k) != nil {
		d.sessions.Remove(r.Context(), keptFormKey)
		return nil
	}
	if page, _, _ := strings.Cut(k.Page, "?"); page != r.URL.Path {
		return nil
	}
	d.sessions.Remove(r.Context(), keptFormKey)
	if len(k.Fields) == 0 {
		d.flash(r, "Your session had expired, so that was not sent. You are signed in again: try once more.")
		return map[string]string{}
	}
	d.flash(r, "Your session had expired, so that was not sent. You are signed in again and what you typed is back in the form: check it and send it.")
	return k.Fields
}

// sessionUser is the user the session names; a session naming a user who
// no longer exists is cleared.
func (d *Dashboard) sessionUser(r *http.Request) (model.User, error) {
	id := d.sessions.GetString(r.Context(), userIDKey)
	if id == "" {
		return model.User{}, nil
	}
	u, err := d.accounts.User(r.Context(), id)
	if errors.Is(err, model.ErrNotFound) {
		d.sessions.Remove(r.Context(), userIDKey)
		return model.User{}, nil
	}
	return u, err
}

// signIn starts a session for u under a new token, so a token planted
// before sign-in is worth nothing after it.
func (d *Dashboard) signIn(r *http.Request, u model.User) error {
	if err := d.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	d.sessions.Put(r.Context(), userIDKey, u.ID)
	return nil
}

// localPath returns next if it is a path on this site, else fallback: a
// sign-in link must not send anyone elsewhere.
func localPath(next, fallback string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return fallback
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return fallback
	}
	return next
}

// SessionStoreError answers a session the store could not load or save:
// a 500, unless the client went away, which is no fault of the server.
func SessionStoreError(w http.ResponseWriter, r *http.Request, err error) {
	if httpx.ClientGone(r) {
		httpx.LogClientGone(r, err)
		http.Error(w, "The request was cut short.", http.StatusBadRequest)
		return
	}
	httpx.Logger(r.Context()).Error("session store", "request_id", httpx.RequestID(r.Context()), "path", r.URL.Path, "err", err)
	http.Error(w, "Folio could not read your session; try again.", http.StatusInternalServerError)
}
