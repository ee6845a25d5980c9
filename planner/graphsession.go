package planner

import (
	"context"
	"github.com/pggraph/pggraph/access"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/wire"
)

// The versioning surface (planner/graphsql): schema graph's views in
// every catalog, SET graph.branch (the branch a session reads and
// writes; the database name until set), SET graph.as_of (a read-only
// snapshot: writes answer 25006), and graph procedure calls (CALL
// graph.f(…) / SELECT graph.f(…)).

// asOfState caches the snapshot SET graph.as_of resolved to.
type asOfState struct {
	branch, value string
	sn            *graph.Snapshot
}

// ValidateSetting implements wire.SettingValidator: an unknown branch or
// an unresolvable as_of is refused at SET, as PostgreSQL refuses a bad
// value for a setting.
func (s *session) ValidateSetting(ctx context.Context, name, value string) error {
	switch name {
	case "graph.branch":
		if s.tx != nil && !s.tx.implicit {
			return wire.Errorf(pgerr.ActiveSQLTransaction, "graph.branch cannot be changed inside a transaction block")
		}
		if value == "" {
			return wire.Errorf(pgerr.InvalidParameterValue, "graph.branch must not be empty")
		}
		// the connection rules first, as at startup: a refused user
		// learns nothing about the branch
		if err := s.admit(value); err != nil {
			return err
		}
		if _, err := s.root.Head(ctx, value); err != nil {
			if graph.IsUnknownBranch(err) {
				return wire.Errorf(pgerr.InvalidCatalogName, "branch \"%s\" does not exist", value)
			}
			return storageFailed(err, "could not read branch \"%s\"", value)
		}
		s.branchSet = true
		s.asOf = nil
	case "role":
		return s.validateSetRole(ctx, value)
	case "graph.as_of":
		if value == "" {
			s.asOf = nil
			return nil
		}
		sn, err := graphsql.ResolveAsOf(ctx, s.g, s.branch(), value, s.location())
		if err != nil {
			return err
		}
		s.asOf = &asOfState{branch: s.branch(), value: value, sn: sn}
	}
	return nil
}

// admit applies the connection's rules to another branch (nil when the
// session may reach it, as if it had connected to it).
func (s *session) admit(branch string) error {
	if s.info.Admit != nil {
		if err := s.info.Admit(branch); err != nil {
			return err
		}
	}
	// then the CONNECT privilege, as at login (branch_privileges.go)
	return s.checkBranchPrivilege(context.Background(), branch, access.PrivConnect)
}

// asOfSnapshot is the SET graph.as_of snapshot (nil when unset).
func (s *session) asOfSnapshot(ctx context.Context) (*graph.Snapshot, error) {
	if s.info.Settings == nil {
		return nil, nil
	}
	v, _ := s.info.Settings.Get("graph.as_of")
	if v == "" {
		return nil, nil
	}
	if s.asOf != nil && s.asOf.value == v && s.asOf.branch == s.branch() {
		return s.asOf.sn, nil
	}
	sn, err := graphsql.ResolveAsOf(ctx, s.g, s.branch(), v, s.location())
	if err != nil {
		return nil, err
	}
	s.asOf = &asOfState{branch: s.branch(), value: v, sn: sn}
	return sn, nil
}

// asOfActive reports a SET graph.as_of session (read-only).
func (s *session) asOfActive() bool {
	if s.info.Settings == nil {
		return false
	}
	v, _ := s.info.Settings.Get("graph.as_of")
	return v != ""
}

// graphViews is schema graph's views for a catalog of sn.
func (s *session) graphViews(ctx context.Context, sn *graph.Snapshot, asOf bool) []*exec.TableDef {
	var views []*exec.TableDef
	if asOf {
		views, _ = graphsql.TablesAsOf(ctx, s.g, sn)
	} else if s.views != nil {
		views = s.views.get(sn.Branch, func() []*exec.TableDef {
			v, _ := graphsql.Tables(ctx, s.g, sn.Branch)
			return v
		})
	} else {
		views, _ = graphsql.Tables(ctx, s.g, sn.Branch)
	}
	return views
}

// execGraphCall runs CALL graph.f(…) / SELECT graph.f(…).
func (s *session) execGraphCall(ctx context.Context, p *plan, params []any) (wire.Result, error) {
	if p.callErr != nil {
		return nil, p.callErr
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	eng := &exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}
	env := graphsql.Env{Branch: s.branch(), InTransaction: s.tx != nil && !s.tx.implicit, TimeZone: s.location(), ReadOnly: s.readOnly(),
		Admit: s.admit}
	env.Actor, env.Application, env.Client = s.attribution()
	env.MayManageBranches = func() error { return s.mayManageBranches(ctx) }
	env.Privilege = func(branch string, p access.BranchPrivs) error { return s.checkBranchPrivilege(ctx, branch, p) }
	env.BranchDeleted = func(branch string) error { return s.forgetBranch(ctx, branch) }
	env.BranchCreated = func(from, branch string) error { return s.inheritSchemaACLs(ctx, from, branch) }
	env.StageMerge = s.stageMerge
	res, err := p.call.Execute(ctx, s.g, env, eng, s.execSession(), p.declared, params)
	if err != nil {
		return nil, err
	}
	return res.Wire(), nil
}

func (s *session) describeGraphCall(ctx context.Context, p *plan) (wire.Description, error) {
	if p.callErr != nil {
		return wire.Description{}, p.callErr
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return wire.Description{}, err
	}
	return p.call.WireDescribe(&exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}, s.execSession(), p.declared)
}
