package internalapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cgi" // #nosec G504 -- the host side, running git http-backend; httpoxy (CVE-2016-5386) hit Go CGI children, and cgi.Handler drops the Proxy header since Go 1.6.3
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// Authenticator admits an API key (auth.Keys.Admit): a read or write key
// that opens the project, used from an address its allowlist admits, may
// clone and fetch.
type Authenticator interface {
	Admit(ctx context.Context, authorization, projectID string, client netip.Addr) (model.APIKey, error)
}

// GitProjects finds the project whose repository a git request is for.
type GitProjects interface {
	ProjectByID(ctx context.Context, id string) (model.Project, error)
}

// GitHTTP serves projects' local repositories over git's smart HTTP
// protocol at /git/{projectId}.git, through git's own `git http-backend`
// (CGI). A read or write key of the project may clone and fetch (any user
// name, the key as password; an ingest key is 403); the worker token may
// also push, and only folio/* branches:
// hooksDir's pre-receive hook refuses the rest. No one else may push.
func GitHTTP(projects GitProjects, keys Authenticator, token WorkerToken, hooksDir string) http.Handler {
	gitPath, lookErr := exec.LookPath("git")
	lim := newWorkerLimiter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := mux.Vars(r)["projectId"]
		ip := httpx.ClientIP(r)
		if ok, _ := lim.failures.Allow(ip); !ok {
			httpx.WriteError(w, r, httpx.NewError(http.StatusTooManyRequests, httpx.CodeRateLimited, "Too many failed sign-ins; retry later."))
			return
		}
		_, pass, hasAuth := r.BasicAuth()
		if !hasAuth {
			pass = workerSecret(r)
		}
		worker := token.Matches(pass)
		if !worker {
			client, _ := netip.ParseAddr(ip) // not an address: no allowlist admits it
			key, err := keys.Admit(r.Context(), "Bearer "+pass, id, client)
			switch {
			case errors.Is(err, model.ErrNoKey), errors.Is(err, model.ErrMalformed), errors.Is(err, model.ErrUnknownKey):
				if pass != "" {
					lim.failures.Fail(ip)
				}
				w.Header().Set("WWW-Authenticate", `Basic realm="folio", charset="UTF-8"`)
				httpx.WriteError(w, r, httpx.NewError(http.StatusUnauthorized, httpx.CodeUnauthorized, "Sign in with any user name and a key of the project as the password."))
				return
			case errors.Is(err, model.ErrNotFound):
				httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "Repository not found."))
				return
			case errors.Is(err, model.ErrIPNotAllowed):
				httpx.WriteDomainError(w, r, err)
				return
			case err != nil:
				httpx.WriteInternal(w, r, err)
				return
			case !key.Allows(http.MethodGet, false):
				// An ingest key is one a third party holds (a drain, a CDN): it
				// sends traffic and reads nothing, the repository least of all.
				httpx.WriteError(w, r, httpx.NewError(http.StatusForbidden, httpx.CodeForbidden, "This API key has the ingest scope: it may only send traffic, to the events API and the drains; clone with a read or write key."))
				return
			}
		}
		push := strings.HasSuffix(r.URL.Path, "/git-receive-pack") || r.URL.Query().Get("service") == "git-receive-pack"
		if push && !worker {
			httpx.WriteError(w, r, httpx.NewError(http.StatusForbidden, httpx.CodeForbidden, "Only Folio's workers may push to this repository."))
			return
		}
		if push {
			// Without the hook, nothing would keep the push to folio/*.
			if _, err := os.Stat(filepath.Join(hooksDir, "pre-receive")); err != nil {
				httpx.WriteInternal(w, r, fmt.Errorf("git: the pre-receive hook is missing, pushes are refused: %w", err))
				return
			}
		}
		p, err := projects.ProjectByID(r.Context(), id)
		if errors.Is(err, model.ErrNotFound) {
			httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "Repository not found."))
			return
		} else if err != nil {
			httpx.WriteInternal(w, r, err)
			return
		}
		kind, location, err := codehost.ParseRepository(p.Repository)
		if err != nil || kind != codehost.KindLocal {
			httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "This project's repository is not served by Folio."))
			return
		}
		if lookErr != nil {
			httpx.WriteInternal(w, r, lookErr)
			return
		}
		// PATH_INFO is what follows the repository's URL; with the repository
		// as GIT_PROJECT_ROOT, http-backend serves exactly that repository.
		receive := "false"
		if worker {
			receive = "true"
		}
		h := &cgi.Handler{
			Path: gitPath,
			Args: []string{"http-backend"},
			Root: "/git/" + id + ".git",
			Env: []string{
				"GIT_PROJECT_ROOT=" + location,
				"GIT_HTTP_EXPORT_ALL=1",
				"GIT_CONFIG_COUNT=3",
				"GIT_CONFIG_KEY_0=http.receivepack", "GIT_CONFIG_VALUE_0=" + receive,
				"GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=" + hooksDir,
				"GIT_CONFIG_KEY_2=http.getanyfile", "GIT_CONFIG_VALUE_2=false",
			},
			InheritEnv: []string{"HOME"},
		}
		h.ServeHTTP(w, r)
	})
}

// PreReceiveHook is the hook GitHTTP's pushes run (in hooksDir, named
// pre-receive): it refuses any ref but a folio/* branch.
const PreReceiveHook = `#!/bin/sh
# Written by Folio: pushes over /git/ may only touch folio/* branches.
while read old new ref; do
	case "$ref" in
	refs/heads/folio/*) ;;
	*) echo "folio: only folio/* branches may be pushed here, not $ref" >&2; exit 1 ;;
	esac
done
`
