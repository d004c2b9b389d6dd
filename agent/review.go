package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/folio-docs/folio/agent/workspace"
	"github.com/folio-docs/folio/doccheck"
)

// maxReviewDiffBytes bounds the diff shown to the model before it finishes
// (about 12,000 tokens); a longer one is cut, and the model reads the files.
const maxReviewDiffBytes = 48 << 10

// reviewNote opens the message that shows the model the branch's whole
// diff before it finishes, as SWE-agent reviews a submission: the branch
// as a pull request will show it, earlier turns' changes included.
const reviewNote = folioNote + "Before you finish, review the branch's whole change"

// review is the message that shows the model, once a turn, the branch's
// diff against the ref it grew from, with what the checks find in it. It is
// "" when the turn changed nothing: a turn that only answers a question
// costs no extra call.
func review(ctx context.Context, ws *workspace.Workspace, ref string, problems []doccheck.Problem) (string, error) {
	turn, err := ws.Changes(ctx)
	if err != nil || len(turn) == 0 {
		return "", err
	}
	diff, err := ws.Diff(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: its diff against %s (earlier turns included) and what Folio's checks find in it. If anything is wrong, missing or unintended, fix it with the tools; then answer with your summary again.\n\n", reviewNote, ref)
	if len(problems) == 0 {
		b.WriteString("Checks: no problems.\n")
	} else {
		fmt.Fprintf(&b, "Checks found %d problems:\n", len(problems))
		for _, p := range problems {
			b.WriteString("- " + p.String() + "\n")
		}
	}
	if len(diff) > maxReviewDiffBytes {
		cut := strings.LastIndexByte(diff[:maxReviewDiffBytes], '\n') + 1
		diff = diff[:cut] + fmt.Sprintf("… the diff is cut here at %d KB of %d KB; read the changed files for the rest.\n", maxReviewDiffBytes>>10, len(diff)>>10)
	}
	b.WriteString("\n<diff>\n" + diff + "</diff>")
	return b.String(), nil
}
