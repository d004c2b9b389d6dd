package doccheck

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// errLinkOutside is a repository file the checks will not read: a symbolic
// link (the file itself or a folder on its path) that leads outside the
// checkout, say to the Folio database or /etc/hostname. git keeps such a
// link as a link and so do the checks; the agent's tools refuse it too.
var errLinkOutside = errors.New("is a symbolic link leading outside the repository; the checks do not follow it")

// repo is the checkout as the checks read it: through the same os.Root as
// the agent's tools, so no path, and no symbolic link met on the way, leads
// outside it.
type repo struct {
	root    *os.Root
	escapes error // os.Root's own (unexported) error for a path that leaves it
}

func newRepo(root *os.Root) *repo {
	r := &repo{root: root}
	// os.Root refuses ".." with the same error it gives a symbolic link that
	// leaves the root; asking for it is how to recognise that error later.
	var pe *fs.PathError
	if _, err := root.Lstat(".."); errors.As(err, &pe) {
		r.escapes = pe.Err
	}
	return r
}

// outside turns os.Root's refusal of a path that leaves it into errLinkOutside.
func (r *repo) outside(err error) error {
	var pe *fs.PathError
	if r.escapes != nil && errors.As(err, &pe) && errors.Is(pe.Err, r.escapes) {
		return errLinkOutside
	}
	return err
}

// read reads a file of the checkout; rel is slash-separated.
func (r *repo) read(rel string) ([]byte, error) {
	data, err := r.root.ReadFile(filepath.FromSlash(rel))
	return data, r.outside(err)
}

// isFile reports whether rel is a file of the checkout (a symbolic link to
// one inside counts); a link that leads outside is errLinkOutside.
func (r *repo) isFile(rel string) (bool, error) {
	st, err := r.root.Stat(filepath.FromSlash(rel))
	if err != nil {
		return false, r.outside(err)
	}
	return !st.IsDir(), nil
}

// present reports whether something named rel is in the checkout, without
// following it if it is a symbolic link.
func (r *repo) present(rel string) bool {
	_, err := r.root.Lstat(filepath.FromSlash(rel))
	return err == nil
}
