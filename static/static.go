// Package static holds the files Folio serves as they are, embedded in the
// binary so Folio works offline: the dashboard's stylesheet and scripts (htmx
// and its server-sent events extension, pinned with their licences; the copy
// buttons; the API reference renderer) and the browser tracker that
// documentation sites embed.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed *.css *.js *.svg *.LICENSE
var files embed.FS

// versions maps each file to a short hash of its content, computed once:
// URLs carry it, so browsers may cache the files forever and still see a
// new release at once.
var versions = func() map[string]string {
	out := map[string]string{}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		b, _ := files.ReadFile(e.Name())
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:6])
	}
	return out
}()

// URL is the path a page links a static file by, with its version.
func URL(name string) string {
	return "/static/" + name + "?v=" + versions[name]
}

// Handler serves the files under /static/.
func Handler() http.Handler {
	fsrv := http.StripPrefix("/static/", http.FileServerFS(files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		if _, ok := versions[name]; !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("v") == versions[name] {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fsrv.ServeHTTP(w, r)
	})
}

// FolioJS is the browser tracker that sites embed, served at /js/folio.js.
//
//go:embed folio.js
var FolioJS []byte
