package codehost

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Policy says which repositories project admins may connect through the
// dashboard. Local repositories are the server's own files, so they must be
// directories directly inside LocalRoot: a project cannot reach the rest of
// the disk, another tenant's files, or a repository nested in a working tree
// the agent can write (where planted git configuration would run commands).
// GitHub repositories are reached with the server's token, so GitHubOwners,
// when set, bounds them too. The operator's CLI is not bound: they already
// have the machine.
type Policy struct {
	LocalRoot    string
	GitHubOwners []string
}

// Allow says why repo may not be connected, or nil if it may.
func (p Policy) Allow(repo string) error {
	kind, location, err := ParseRepository(repo)
	if err != nil {
		return err
	}
	if kind == KindGitHub {
		if len(p.GitHubOwners) == 0 {
			return nil
		}
		owner, _, _ := strings.Cut(location, "/")
		for _, o := range p.GitHubOwners {
			if strings.EqualFold(o, owner) {
				return nil
			}
		}
		return fmt.Errorf("GitHub repositories on this server must belong to %s", strings.Join(p.GitHubOwners, " or "))
	}
	root, err := filepath.EvalSymlinks(p.LocalRoot)
	if err != nil {
		return fmt.Errorf("local repositories are not enabled on this server")
	}
	within := fmt.Errorf("local repositories must be directories directly inside %s, such as %s", p.LocalRoot, filepath.Join(p.LocalRoot, "docs"))
	// Lexically first, so nothing outside the root is even looked at.
	if dir := filepath.Dir(location); dir != filepath.Clean(p.LocalRoot) && dir != root {
		return within
	}
	real, err := filepath.EvalSymlinks(location)
	if err != nil {
		return fmt.Errorf("there is no repository at %s", location)
	}
	if filepath.Dir(real) != root || strings.HasPrefix(filepath.Base(real), ".") {
		return within
	}
	return nil
}
