package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/folio-docs/folio/analytics"
	"github.com/folio-docs/folio/auth"
	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/projects"
)

func openDB(ctx context.Context, cfg Config) (*db.DB, error) {
	d, err := db.Open(ctx, cfg.DBPath)
	if err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("cannot open the database (FOLIO_DB=%s): %v", cfg.DBPath, err)}
	}
	return d, nil
}

func cmdUserCreate(ctx context.Context, args []string, e env) error {
	fs := newFlags("user create", "user create --email E --password-stdin", e)
	email := fs.String("email", "", "the admin's email `address`")
	fromStdin := fs.Bool("password-stdin", false, "read the password from standard input (required)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *email == "" {
		return usageError(fs, "--email must be an email address")
	}
	if !*fromStdin {
		return usageError(fs, "--password-stdin is required: pass the password on standard input, never as an argument")
	}
	line, err := bufio.NewReader(io.LimitReader(e.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot read the password: %w", err)
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	u, err := a.accounts.Create(ctx, *email, strings.TrimRight(line, "\r\n"))
	switch {
	case errors.Is(err, model.ErrInvalidEmail):
		return usageError(fs, "--email must be an email address")
	case errors.Is(err, model.ErrPasswordTooShort):
		return &exitError{code: 2, msg: err.Error()}
	case errors.Is(err, model.ErrEmailTaken):
		return &exitError{code: 1, msg: fmt.Sprintf("a user with email %s already exists", *email)}
	case err != nil:
		return err
	}
	fmt.Fprintln(e.stdout, u.ID)
	return nil
}

func cmdProjectCreate(ctx context.Context, args []string, e env) error {
	fs := newFlags("project create", "project create --name N --repo REPO [--ref main] [--owner EMAIL]", e)
	name := fs.String("name", "", "project `name` (required)")
	repo := fs.String("repo", "", "repository: owner/name on GitHub, or a local git repository path or file:// URL (required)")
	ref := fs.String("ref", "main", "the `branch` jobs start from")
	owner := fs.String("owner", "", "`email` of an existing user who administers the project")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if strings.TrimSpace(*name) == "" || strings.TrimSpace(*repo) == "" {
		return usageError(fs, "--name and --repo are required")
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	p := model.Project{Name: *name, Repository: *repo, Ref: *ref}
	if *owner != "" {
		u, err := a.projects.Account(ctx, *owner)
		if errors.Is(err, model.ErrNoAccount) {
			return &exitError{code: 1, msg: fmt.Sprintf("no user with email %s; create one with folio user create", *owner)}
		}
		if err != nil {
			return err
		}
		p.OwnerID = u.ID
	}
	if p, err = a.projects.Create(ctx, p); err != nil {
		return refuseProject(err)
	}
	fmt.Fprintln(e.stdout, p.ID)
	return nil
}

func cmdProjectUpdate(ctx context.Context, args []string, e env) error {
	fs := newFlags("project update", "project update ID [--name N] [--repo REPO] [--ref R] [--model M] [--webhook URL] [--webhook-secret S] [--drain-secret-stdin | --new-drain-secret] [--vercel-verify CODE]", e)
	var set = map[string]*string{}
	for _, f := range []struct{ name, help string }{
		{"name", "project name"}, {"repo", "repository"}, {"ref", "branch jobs start from"},
		{"model", "model for this project's jobs (empty: FOLIO_MODEL)"},
		{"webhook", "URL that receives job.status_changed events (empty: none)"},
		{"webhook-secret", "secret that signs webhook deliveries"},
	} {
		set[f.name] = fs.String(f.name, "", f.help)
	}
	drainStdin := fs.Bool("drain-secret-stdin", false, "read the drain secret (the one Vercel signs its log drain with) from standard input")
	newDrain := fs.Bool("new-drain-secret", false, "make a new drain secret and print it, once, instead of the project id")
	vercelVerify := fs.String("vercel-verify", "", "the code Vercel's log drain verification expects back (x-vercel-verify; empty: none)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "give exactly one project ID")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *drainStdin && *newDrain {
		return usageError(fs, "give --drain-secret-stdin or --new-drain-secret, not both")
	}
	var drainSecret string
	if *drainStdin {
		line, err := bufio.NewReader(io.LimitReader(e.stdin, 4096)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("cannot read the drain secret: %w", err)
		}
		if drainSecret = strings.TrimRight(line, "\r\n"); drainSecret == "" {
			return usageError(fs, "--drain-secret-stdin: standard input is empty (--new-drain-secret makes one)")
		}
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	p, err := a.projects.ByID(ctx, pos[0])
	if errors.Is(err, model.ErrNotFound) {
		return &exitError{code: 1, msg: fmt.Sprintf("no project with id %s", pos[0])}
	}
	if err != nil {
		return err
	}
	stored := p
	changed := false
	for name, field := range map[string]*string{"name": &p.Name, "repo": &p.Repository, "ref": &p.Ref, "model": &p.Model, "webhook": &p.WebhookURL, "webhook-secret": &p.WebhookSecret} {
		if given[name] {
			*field = *set[name]
			changed = true
		}
	}
	if p.Name == "" || p.Repository == "" || p.Ref == "" {
		return usageError(fs, "--name, --repo and --ref cannot be empty")
	}
	if changed {
		if _, err := a.projects.Update(ctx, stored, p); err != nil {
			return refuseProject(err)
		}
	}
	drainFlags := map[string]string{analytics.FieldDrainSecret: "--drain-secret-stdin", analytics.FieldVercelVerify: "--vercel-verify"}
	if given["vercel-verify"] {
		if err := a.analytics.SetVercelVerify(ctx, p.ID, *vercelVerify); err != nil {
			return refuseFields(err, drainFlags)
		}
	}
	if *drainStdin || *newDrain {
		secret, err := a.analytics.SetDrainSecret(ctx, p.ID, drainSecret)
		if err != nil {
			return refuseFields(err, drainFlags)
		}
		if *newDrain {
			fmt.Fprintln(e.stdout, secret)
			return nil
		}
	}
	fmt.Fprintln(e.stdout, p.ID)
	return nil
}

// refuseProject turns a refused project into one line naming the flag, and
// exit status 1; any other error is returned as it is.
func refuseProject(err error) error {
	return refuseFields(err, map[string]string{projects.FieldName: "--name", projects.FieldRepository: "--repo", projects.FieldRef: "--ref",
		projects.FieldModel: "--model", projects.FieldWebhookURL: "--webhook", projects.FieldWebhookSecret: "--webhook-secret"})
}

// refuseFields turns refused fields into one line naming each one's flag
// (field → flag), and exit status 1; any other error is returned as it is.
func refuseFields(err error, flags map[string]string) error {
	var errs model.FieldErrors
	if !errors.As(err, &errs) {
		return err
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = flags[e.Field] + ": " + e.Message
	}
	return &exitError{code: 1, msg: strings.Join(msgs, " ")}
}

// listFlag is a flag that may be given again, each value kept in order.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func cmdKeyCreate(ctx context.Context, args []string, e env) error {
	fs := newFlags("key create", "key create (--project ID [--project ID]... | --all-projects --owner EMAIL) [--name N] [--scope read|ingest|write] [--expires 7d|30d|60d|90d|never] [--allow-ip CIDR,...] [--owner EMAIL]", e)
	var projectIDs, allowIPs listFlag
	fs.Var(&projectIDs, "project", "`id` of a project the key opens (required unless --all-projects; repeat it for several)")
	all := fs.Bool("all-projects", false, "open every project the --owner administers, those they join later included")
	owner := fs.String("owner", "", "`email` of the user the key is issued by: the one whose projects --all-projects opens (each --project must be theirs)")
	fs.Var(&allowIPs, "allow-ip", "`CIDRs` or addresses the key may be used from, separated by commas (10.0.0.0/8,2001:db8::/32; repeatable); requests from elsewhere get 403 ip_not_allowed")
	name := fs.String("name", "", "a name to recognise the key by")
	scope := fs.String("scope", model.ScopeWrite, "read (GET and HEAD only), ingest (the events API and the drains only: a key a third party may hold) or write")
	expires := fs.String("expires", "90d", "7d, 30d, 60d, 90d or never")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *all && len(projectIDs) > 0:
		return usageError(fs, "give --project or --all-projects, not both")
	case *all && *owner == "":
		return usageError(fs, "--all-projects needs --owner: the user whose projects the key opens")
	case !*all && len(projectIDs) == 0:
		return usageError(fs, "--project is required (or --all-projects with --owner)")
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	nk := auth.NewKey{Name: *name, Scope: *scope, Expiry: *expires, Projects: projectIDs, AllProjects: *all, AllowIPs: strings.Join(allowIPs, ",")}
	if *owner != "" {
		u, err := a.projects.Account(ctx, *owner)
		if errors.Is(err, model.ErrNoAccount) {
			return &exitError{code: 1, msg: fmt.Sprintf("no user with email %s; create one with folio user create", *owner)}
		}
		if err != nil {
			return err
		}
		nk.CreatedBy = u.ID
	}
	if nk.Name == "" {
		nk.Name = "key " + time.Now().UTC().Format("2006-01-02 15:04")
	}
	plain, _, err := a.keys.Create(ctx, nk)
	var fields model.FieldErrors
	switch {
	case errors.Is(err, model.ErrKeyName):
		return &exitError{code: 1, msg: "--name: " + auth.KeyNameRule}
	case errors.Is(err, model.ErrKeyOptions):
		return usageError(fs, "%v", err)
	case errors.As(err, &fields):
		return refuseFields(err, map[string]string{auth.FieldKeyProjects: "--project", auth.FieldKeyAllowIP: "--allow-ip"})
	case err != nil:
		return err
	}
	fmt.Fprintln(e.stdout, plain)
	return nil
}

func cmdKeyList(ctx context.Context, args []string, e env) error {
	fs := newFlags("key list", "key list --project ID", e)
	project := fs.String("project", "", "project `id` (required): lists the keys that open it")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" {
		return usageError(fs, "--project is required")
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	keys, err := a.keys.List(ctx, *project)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	// One key a line for scripts; a header too for a person at a terminal.
	if f, ok := e.stdout.(*os.File); ok && isTerminal(f) {
		fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tKEY\tCREATED\tLAST USED\tEXPIRES\tSTATUS\tPROJECTS\tALLOWED IPS")
	}
	now := time.Now()
	for _, k := range keys {
		status := k.State(now)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s…%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Scope, auth.KeyPrefix, k.LastFour,
			fmtTime(&k.CreatedAt), fmtTime(k.LastUsedAt), fmtTime(k.ExpiresAt), status, keyProjects(k), keyAllowlist(k))
	}
	return tw.Flush()
}

// keyProjects is what a key opens, as key list shows it: its projects'
// ids, or all of a user's.
func keyProjects(k model.APIKey) string {
	if k.AllProjects {
		return "all:" + k.Creator
	}
	return strings.Join(k.Projects, ",")
}

// keyAllowlist is a key's IP allowlist as key list shows it; "any" for none.
func keyAllowlist(k model.APIKey) string {
	if len(k.AllowIPs) == 0 {
		return "any"
	}
	s := make([]string, len(k.AllowIPs))
	for i, p := range k.AllowIPs {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

func cmdKeyRevoke(ctx context.Context, args []string, e env) error {
	fs := newFlags("key revoke", "key revoke --project ID KEY   (KEY: the key itself, or its id from key list; a key that opens several projects is revoked for all)", e)
	project := fs.String("project", "", "`id` of a project the key opens (required)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *project == "" || len(pos) != 1 {
		return usageError(fs, "--project and one KEY are required")
	}
	a, err := openApp(ctx, e, false)
	if err != nil {
		return err
	}
	defer a.Close()
	keyID := pos[0]
	if strings.HasPrefix(keyID, auth.KeyPrefix) {
		k, err := a.db.APIKeyByHash(ctx, auth.HashKey(keyID))
		if err != nil {
			return &exitError{code: 1, msg: "no such key in this project"}
		}
		keyID = k.ID // Revoke checks that it opens the project
	}
	if err := a.keys.Revoke(ctx, *project, keyID); errors.Is(err, model.ErrNotFound) {
		return &exitError{code: 1, msg: "no such key in this project"}
	} else if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, keyID)
	return nil
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
