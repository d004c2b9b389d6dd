package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/folio-docs/folio/accounts"
	"github.com/folio-docs/folio/model"
)

// cmdInviteCreate makes an invitation link for an email address to join a
// project, as a project member can on the settings page, and prints it.
func cmdInviteCreate(ctx context.Context, args []string, e env) error {
	fs := newFlags("invite create", "invite create --project ID --email E", e)
	projectID := fs.String("project", "", "project `id` (required)")
	email := fs.String("email", "", "the invited person's email `address` (required)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *projectID == "" || !accounts.ValidEmail(*email) {
		return usageError(fs, "--project and --email (an address such as ada@example.com) are required")
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	link, _, err := a.invitations.Create(ctx, *projectID, *email, "")
	if errors.Is(err, model.ErrNotFound) {
		return &exitError{code: 1, msg: fmt.Sprintf("no project with id %s", *projectID)}
	}
	if errors.Is(err, model.ErrAlreadyMember) {
		return &exitError{code: 1, msg: fmt.Sprintf("%s is already a member of project %s", *email, *projectID)}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, link)
	return nil
}
