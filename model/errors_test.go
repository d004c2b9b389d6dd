package model_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/folio-docs/folio/model"
)

func TestFieldErrors(t *testing.T) {
	var none model.FieldErrors
	if err := none.Err(); err != nil {
		t.Errorf("no field refused: Err() = %v, want nil", err)
	}
	var errs model.FieldErrors
	errs.Add("ref", "Give a branch name, such as %s.", "main")
	errs.Add("", "The form is out of date.")
	errs.Add("ref", "A second reason.")
	if got := errs.Of("ref"); got != "Give a branch name, such as main." {
		t.Errorf("Of(ref) = %q, want the first reason", got)
	}
	if got := errs.Of("model"); got != "" {
		t.Errorf("Of(model) = %q, want none", got)
	}
	if got, want := errs.Error(), "ref: Give a branch name, such as main.; The form is out of date.; ref: A second reason."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var found model.FieldErrors
	if !errors.As(fmt.Errorf("projects: %w", errs.Err()), &found) || len(found) != 3 {
		t.Errorf("errors.As through a wrap found %v, want the three", found)
	}
	b, err := json.Marshal(model.Invalid("prompt", "Field \"prompt\" is required."))
	if want := `[{"field":"prompt","message":"Field \"prompt\" is required."}]`; err != nil || string(b) != want {
		t.Errorf("JSON = %s, %v; want %s (CONTRACT §5 details)", b, err, want)
	}
}
