package doccheck

import "fmt"

// Severities of a Problem (CONTRACT §2): an error is what would fail
// Mintlify's build; a warning builds but reads wrong.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Problem is one finding of the checks a turn's changes go through before
// they become a pull request. Line and Column are 1-based, 0 when the
// problem has no place in the file (a missing page, say).
type Problem struct {
	Path     string `json:"path"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// String is the problem as one line the model (and a reader) can act on:
// path:line:column: message.
func (p Problem) String() string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", p.Path, p.Line, p.Column, p.Message)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Message)
	default:
		return fmt.Sprintf("%s: %s", p.Path, p.Message)
	}
}

// HasErrors reports whether any problem is an error, not a warning: only
// errors make a job's pull request a draft.
func HasErrors(problems []Problem) bool {
	for _, p := range problems {
		if p.Severity != SeverityWarning {
			return true
		}
	}
	return false
}

// problemf is an error-severity problem without a place in the file.
func problemf(path, format string, args ...any) Problem {
	return Problem{Path: path, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}
}
