package agent

import (
	"fmt"
	"path"
	"strings"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/doccheck"
)

// maxCheckLines bounds the problems one tool result lists.
const maxCheckLines = 30

// checkTouched runs the page and configuration checks, in-process, on what
// one tool call changed (as Aider lints after every edit), and says what
// they found, one problem a line as path:line:column: message. A page
// written or edited is checked itself; a page deleted or moved away also
// has the links and navigation entries that named it checked. It is "" when
// the call touched no page or configuration file.
func (c *checkout) checkTouched(changes ...workspace.Change) string {
	var names []string
	for _, ch := range changes {
		if isDocPage(ch.Path) || isNavFile(ch.Path) {
			names = append(names, ch.Path)
		}
	}
	if len(names) == 0 {
		return ""
	}
	problems := doccheck.Check(c.root, changes)
	if len(problems) == 0 {
		return fmt.Sprintf("\nChecks of %s: no problems.", andList(names))
	}
	var b strings.Builder
	errs := 0
	for _, p := range problems {
		if p.Severity != doccheck.SeverityWarning {
			errs++
		}
	}
	fmt.Fprintf(&b, "\nChecks of %s found %d problems (%d errors, which would fail Mintlify's build; %d warnings, which build but read wrong). Fix them:", andList(names), len(problems), errs, len(problems)-errs)
	for i, p := range problems {
		if i == maxCheckLines {
			fmt.Fprintf(&b, "\n… and %d more", len(problems)-i)
			break
		}
		b.WriteString("\n" + p.String())
		if p.Severity == doccheck.SeverityWarning {
			b.WriteString(" (warning)")
		}
	}
	return b.String()
}

func isNavFile(p string) bool {
	base := path.Base(p)
	return base == "docs.json" || base == "mint.json"
}
