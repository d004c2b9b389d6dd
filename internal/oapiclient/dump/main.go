// Command dump writes Folio's OpenAPI document, as /openapi.json serves it
// for the base URL http://folio.test, to the file named by its argument.
package main

import (
	"encoding/json"
	"log"
	"os"

	"github.com/folio-docs/folio/handlers/api"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: dump FILE")
	}
	b, err := json.MarshalIndent(api.FolioOpenAPI("http://folio.test"), "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	// #nosec G306 G703 -- the file its developer names, a document everyone may read
	if err := os.WriteFile(os.Args[1], append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}
