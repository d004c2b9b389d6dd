package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio-docs/folio/db"
)

// Session keys.
const (
	userIDKey = "userID"
	flashKey  = "flash"
)

type userCtxKey struct{}

// currentUser is the signed-in admin, set by RequireUser (or LoadUser).
func currentUser(ctx context.Context) (db.User, bool) {
	u, ok := ctx.Value(userCtxKey{}).(db.User)
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
// where it was going.
func (d *Dashboard) RequireUser(next http.Handler) http.Handler {
	return d.LoadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := currentUser(r.Context()); !ok {
			to := "/login"
			if r.Method == http.MethodGet && r.URL.Path != "/" {
				to += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			redirect(w, r, to)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// sessionUser is the user the session names; a session naming a user who
// no longer exists is cleared.
func (d *Dashboard) sessionUser(r *http.Request) (db.User, error) {
	id := d.sessions.GetString(r.Context(), userIDKey)
	if id == "" {
		return db.User{}, nil
	}
	u, err := d.store.UserByID(r.Context(), id)
	if errors.Is(err, db.ErrNotFound) {
		d.sessions.Remove(r.Context(), userIDKey)
		return db.User{}, nil
	}
	return u, err
}

// signIn starts a session for u under a new token, so a token planted
// before sign-in is worth nothing after it.
func (d *Dashboard) signIn(r *http.Request, u db.User) error {
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
	if clientGone(r) {
		logClientGone(r, err)
		http.Error(w, "The request was cut short.", http.StatusBadRequest)
		return
	}
	logger(r.Context()).Error("session store", "request_id", RequestID(r.Context()), "path", r.URL.Path, "err", err)
	http.Error(w, "Folio could not read your session; try again.", http.StatusInternalServerError)
}
