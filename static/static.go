// Package static holds the files Folio serves as they are, embedded in the
// binary: the browser tracker.
package static

import _ "embed"

// FolioJS is the browser tracker served at /js/folio.js.
//
//go:embed folio.js
var FolioJS []byte
