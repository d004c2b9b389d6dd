package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/projects"
)

// RefChecker says whether a repository has a branch (projects.Validator).
type RefChecker interface {
	CheckRef(ctx context.Context, repo, ref string) error
}

// ModelCatalog lists the models the provider offers (agent.Agent); an
// error means it cannot say, and any model name is accepted.
type ModelCatalog interface {
	Models(ctx context.Context) ([]string, error)
}

// modelsFor is how long a provider's model list is trusted.
const modelsFor = 5 * time.Minute

// modelCache keeps the provider's list between creates.
type modelCache struct {
	mu     sync.Mutex
	models []string
	ok     bool
	at     time.Time
}

// checkRef refuses a ref the project's repository does not have. A host
// that cannot be asked (no token, unreachable) does not refuse: the run
// finds out, and fails with ref_not_found if so.
func (s *Service) checkRef(ctx context.Context, repo, ref string) error {
	if !projects.ValidRefName(ref) {
		return model.Invalid("ref", fmt.Sprintf("Field \"ref\" must be a branch name, such as main; %q is not.", ref))
	}
	if s.cfg.Refs == nil {
		return nil
	}
	err := s.cfg.Refs.CheckRef(ctx, repo, ref)
	if errors.Is(err, codehost.ErrRefNotFound) {
		return model.Invalid("ref", fmt.Sprintf("Field \"ref\": the repository %s has no branch %q.", repo, ref))
	}
	if err != nil && !errors.Is(err, codehost.ErrRepositoryNotFound) {
		s.log.Warn("unable to check a job's ref; the run will", "ref", ref, "err", err)
	}
	return nil
}

// checkModel refuses a model the provider does not list, where it lists them.
func (s *Service) checkModel(ctx context.Context, name string) error {
	if len(name) > 200 || !modelName.MatchString(name) {
		return model.Invalid("model", "Field \"model\" must be a model name without spaces, such as gpt-4.1.")
	}
	listed, ok := s.listedModels(ctx)
	if ok && !slices.Contains(listed, name) {
		return model.Invalid("model", fmt.Sprintf("Field \"model\": the provider does not offer %q; GET /v2/agent/{projectId}/models lists the models a job may use.", name))
	}
	return nil
}

// listedModels is the provider's list, and whether it gave one.
func (s *Service) listedModels(ctx context.Context) ([]string, bool) {
	if s.cfg.Models == nil {
		return nil, false
	}
	c := &s.models
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < modelsFor {
		return c.models, c.ok
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	models, err := s.cfg.Models.Models(ctx)
	if err != nil {
		s.log.Warn("the model provider lists no models; any model name is accepted", "err", err)
	}
	c.models, c.ok, c.at = models, err == nil, time.Now()
	return c.models, c.ok
}

// Models is what GET .../models answers: the models a job of the project
// may use (the provider's list; only the default when it has none), and
// the model a job gets when it names none.
func (s *Service) Models(ctx context.Context, projectID string) (models []string, def string, err error) {
	p, err := s.db.ProjectByID(ctx, projectID)
	if err != nil {
		return nil, "", err
	}
	def = p.Model
	if def == "" {
		def = s.cfg.DefaultModel
	}
	listed, ok := s.listedModels(ctx)
	if !ok {
		listed = []string{}
		if def != "" {
			listed = []string{def}
		}
	}
	return listed, def, nil
}
