package graphsql

import (
	"context"
	"fmt"
	"github.com/pggraph/pggraph/access"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/recovery"
	"github.com/pggraph/pggraph/wire"
)

// Env is the session state a graph procedure depends on.
type Env struct {
	// Branch is the session's branch: the default of create_branch's from,
	// merge's into and optimize's branch ("" = main).
	Branch string
	// InTransaction: the session is inside an explicit transaction block.
	// Every graph procedure is refused there (25001): branch create and
	// delete, cleanup and recover are control operations outside the
	// graph-commit model, and merge and optimize publish their own graph
	// commit, which cannot join (or roll back with) the transaction's.
	InTransaction bool
	// ReadOnly: the session may not write (SET graph.as_of,
	// default_transaction_read_only). Every graph procedure writes
	// something (a branch ref, a graph commit, reclaimed files, recovery
	// outcomes), so each answers 25006 then, as PostgreSQL refuses CREATE
	// DATABASE in a read-only session.
	ReadOnly bool
	// TimeZone reads zone-less timestamps of create_branch's at (nil = UTC).
	TimeZone *time.Location
	// Admit refuses a branch the session may not reach (the connection
	// rules applied to that branch as a database name); every branch a
	// procedure names passes it, so a procedure is no way around a rule
	// that refuses the branch at connection. nil admits all.
	Admit func(branch string) error
	// Actor, Application and Client attribute the commits procedures
	// make (graph.Commit): the session's role, application_name and
	// client address.
	Actor, Application, Client string
	// MayManageBranches refuses a role that may not create or delete
	// branches (PostgreSQL's CREATEDB: a database is a branch). nil
	// allows.
	MayManageBranches func() error
	// Privilege refuses the session's role without privilege p on branch
	// (WRITE for optimize's commit, MERGE on merge's target); nil allows.
	Privilege func(branch string, p access.BranchPrivs) error
	// BranchCreated is told of a branch created from another (the new
	// branch takes from's schema privileges); nil does nothing.
	BranchCreated func(from, branch string) error
	// BranchDeleted is told of a deleted branch (its privileges are
	// forgotten); nil does nothing.
	BranchDeleted func(branch string) error
	// StageMerge stages the merge of from into into in the session's
	// transaction block (graph.merge strategy 'stop') and returns the
	// number of conflicting rows; nil refuses the strategy (0A000).
	StageMerge func(ctx context.Context, from, into string) (int, error)
}

func (e Env) privilege(branch string, p access.BranchPrivs) error {
	if e.Privilege == nil {
		return nil
	}
	return e.Privilege(branch, p)
}

// admit checks every branch a procedure names against Env.Admit.
func (e Env) admit(branches ...string) error {
	if e.Admit == nil {
		return nil
	}
	for _, b := range branches {
		if err := e.Admit(b); err != nil {
			return err
		}
	}
	return nil
}

func (e Env) branch() string {
	if e.Branch == "" {
		return graph.MainBranch
	}
	return e.Branch
}

// function is one graph procedure: its parameters, result type and body.
type function struct {
	name     string
	params   []string // parameter names, in order
	required int      // leading parameters that must be given
	result   exec.Type
	run      func(ctx context.Context, g *adapters.Graph, env Env, args []*string) (any, error)
}

// signature renders "graph.f(a [, b [, c]])" for messages.
func (f *function) signature() string {
	var b strings.Builder
	b.WriteString(Schema + "." + f.name + "(")
	for i, p := range f.params {
		switch {
		case i < f.required && i > 0:
			b.WriteString(", ")
		case i >= f.required && i > 0:
			b.WriteString(" [, ")
		case i >= f.required:
			b.WriteString("[")
		}
		b.WriteString(p)
	}
	if n := len(f.params) - f.required; n > 0 {
		b.WriteString(strings.Repeat("]", n))
	}
	b.WriteString(")")
	return b.String()
}

func (f *function) arity() string {
	switch {
	case f.required == len(f.params):
		if f.required == 1 {
			return "1 argument"
		}
		return strconv.Itoa(f.required) + " arguments"
	default:
		return fmt.Sprintf("%d to %d arguments", f.required, len(f.params))
	}
}

var functions = map[string]*function{}

func init() {
	for _, f := range []*function{
		{name: "create_branch", params: []string{"name", "from", "at"}, required: 1, result: exec.TText, run: createBranch},
		{name: "delete_branch", params: []string{"name"}, required: 1, result: exec.TText, run: deleteBranch},
		{name: "merge", params: []string{"from", "into", "strategy"}, required: 1, result: exec.TText, run: merge},
		{name: "optimize", params: []string{"table"}, required: 0, result: exec.TText, run: optimize},
		{name: "cleanup", params: nil, required: 0, result: exec.TText, run: cleanup},
		{name: "recover", params: nil, required: 0, result: exec.TInt8, run: recoverIntents},
	} {
		functions[f.name] = f
	}
}

// Functions lists the graph procedures by name.
func Functions() []string {
	out := make([]string, 0, len(functions))
	for n := range functions {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Call runs graph procedure name ("create_branch" or "graph.create_branch")
// with evaluated arguments in parameter order: each nil (NULL / not
// given), a string, or a value rendered as text (int64, time.Time in
// UTC, …). The result is the procedure's value (see Result).
func Call(ctx context.Context, g *adapters.Graph, env Env, name string, args []any) (*Result, error) {
	f, ok := functions[strings.TrimPrefix(strings.ToLower(name), Schema+".")]
	if !ok {
		return nil, undefinedFunction(false, name, make([]string, len(args)))
	}
	if len(args) < f.required || len(args) > len(f.params) {
		return nil, arityError(f, len(args))
	}
	texts := make([]*string, len(f.params))
	for i, a := range args {
		texts[i] = argText(a)
	}
	return call(ctx, g, env, f, texts)
}

func argText(a any) *string {
	var s string
	switch x := a.(type) {
	case nil:
		return nil
	case *string:
		return x
	case string:
		s = x
	case []byte:
		s = string(x)
	case time.Time:
		s = x.UTC().Format("2006-01-02 15:04:05.999999Z07:00")
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

func call(ctx context.Context, g *adapters.Graph, env Env, f *function, args []*string) (*Result, error) {
	if env.InTransaction && !stagesMerge(f, args) {
		return nil, errf(CodeActiveSQLTransaction, "%s.%s cannot run inside a transaction block", Schema, f.name).
			WithHint(inTransactionHint(f))
	}
	if env.ReadOnly {
		return nil, errf(CodeReadOnly, "cannot execute %s.%s in a read-only transaction", Schema, f.name)
	}
	for i := 0; i < f.required; i++ {
		if args[i] == nil {
			return nil, errf(CodeNullValueNotAllowed, "argument %q of %s.%s must not be NULL", f.params[i], Schema, f.name)
		}
	}
	v, err := f.run(ctx, g, env, args)
	if err != nil {
		return nil, err
	}
	return &Result{Function: f.name, Type: f.result, Value: v, Tag: "CALL"}, nil
}

func undefinedFunction(procedure bool, name string, argTypes []string) *wire.Error {
	kind, what := "function", "function"
	if procedure {
		kind, what = "procedure", "procedure"
	}
	for i, t := range argTypes {
		if t == "" {
			argTypes[i] = "unknown"
		}
	}
	return errf(CodeUndefinedFunction, "%s %s.%s(%s) does not exist", kind, Schema, name, strings.Join(argTypes, ", ")).
		WithHint(fmt.Sprintf("No %s matches the given name and argument types. The graph procedures are %s.", what, strings.Join(Functions(), ", ")))
}

func arityError(f *function, got int) *wire.Error {
	return errf(CodeSyntaxError, "%s.%s takes %s, got %d", Schema, f.name, f.arity(), got).
		WithHint("Call it as " + f.signature() + ".")
}

// requireBranch answers 3D000 unless branch exists.
func requireBranch(ctx context.Context, g *adapters.Graph, what, branch string) (*graph.Snapshot, error) {
	sn, err := g.Root.Head(ctx, branch)
	if err != nil {
		return nil, sqlError(what, branch, err)
	}
	return sn, nil
}

func createBranch(ctx context.Context, g *adapters.Graph, env Env, args []*string) (any, error) {
	name := *args[0]
	from := env.branch()
	if args[1] != nil {
		from = *args[1]
	}
	const what = "graph.create_branch"
	// a new branch starts as a copy of from: reading from and reaching
	// the new branch are both connections to them
	if err := env.admit(from, name); err != nil {
		return nil, err
	}
	if env.MayManageBranches != nil {
		if err := env.MayManageBranches(); err != nil {
			return nil, err
		}
	}
	head, err := requireBranch(ctx, g, what, from)
	if err != nil {
		return nil, err
	}
	if args[2] != nil {
		at, err := ResolveAsOf(ctx, g, from, *args[2], env.TimeZone)
		if err != nil {
			return nil, err
		}
		// the head itself (commit ids are unique; a branch without commits
		// of its own has its parent's fork commit as head)
		if at.Commit.ID != head.Commit.ID {
			// an older commit: fork the __manifest at that version
			if _, err := g.CreateBranchAt(ctx, name, at); err != nil {
				return nil, sqlError(what, name, err)
			}
			return name, env.branchCreated(from, name)
		}
	}
	if _, err := g.CreateBranch(ctx, name, from); err != nil {
		return nil, sqlError(what, name, err)
	}
	return name, env.branchCreated(from, name)
}

func (env Env) branchCreated(from, name string) error {
	if env.BranchCreated == nil {
		return nil
	}
	return env.BranchCreated(from, name)
}

func deleteBranch(ctx context.Context, g *adapters.Graph, env Env, args []*string) (any, error) {
	name := *args[0]
	if err := env.admit(name); err != nil {
		return nil, err
	}
	if env.MayManageBranches != nil {
		if err := env.MayManageBranches(); err != nil {
			return nil, err
		}
	}
	if name == graph.MainBranch {
		return nil, errf(CodeInvalidName, "branch %q cannot be deleted", name).WithDetail("main is the graph's default branch.")
	}
	if name == env.branch() {
		return nil, errf(CodeObjectInUse, "cannot delete branch %q: this session is using it", name).
			WithHint("Connect to another branch (the database name) or SET graph.branch first.")
	}
	if err := g.DeleteBranch(ctx, name); err != nil {
		return nil, sqlError("graph.delete_branch", name, err)
	}
	if env.BranchDeleted != nil {
		if err := env.BranchDeleted(name); err != nil {
			return nil, errf(pgerr.IOError, "branch %q was deleted but its privileges could not be forgotten: %v", name, err)
		}
	}
	return name, nil
}

func merge(ctx context.Context, g *adapters.Graph, env Env, args []*string) (any, error) {
	from, into := *args[0], env.branch()
	if args[1] != nil {
		into = *args[1]
	}
	const what = "graph.merge"
	if err := env.admit(from, into); err != nil {
		return nil, err
	}
	if err := env.privilege(into, access.PrivMerge); err != nil {
		return nil, err
	}
	if _, err := requireBranch(ctx, g, what, from); err != nil {
		return nil, err
	}
	if _, err := requireBranch(ctx, g, what, into); err != nil {
		return nil, err
	}
	if from == into {
		return nil, errf(CodeInvalidParameterValue, "cannot merge branch %q into itself", from)
	}
	var strategy string
	if args[2] != nil {
		switch strategy = strings.ToLower(strings.TrimSpace(*args[2])); strategy {
		case adapters.MergeOurs, adapters.MergeTheirs:
		case mergeStop:
			return stageMerge(ctx, env, from, into)
		default:
			return nil, errf(CodeInvalidParameterValue, "invalid graph.merge strategy %q", *args[2]).
				WithHint("The strategies are 'ours' (keep the target's rows), 'theirs' (take the source's) and 'stop' (stage the merge in the transaction and resolve its conflicts in SQL).")
		}
	}
	rc, err := g.MergeWith(ctx, adapters.MergeOptions{From: from, Into: into, Message: fmt.Sprintf("merge %s into %s", from, into),
		Actor: env.Actor, Application: env.Application, Client: env.Client, Strategy: strategy})
	if err != nil {
		return nil, sqlError(what, into, err)
	}
	if rc == nil || rc.CommitID == "" {
		return nil, nil // nothing to merge
	}
	return rc.CommitID, nil
}

func optimize(ctx context.Context, g *adapters.Graph, env Env, args []*string) (any, error) {
	branch := env.branch()
	const what = "graph.optimize"
	if err := env.admit(branch); err != nil {
		return nil, err
	}
	if err := env.privilege(branch, access.PrivWrite); err != nil {
		return nil, err
	}
	head, err := requireBranch(ctx, g, what, branch)
	if err != nil {
		return nil, err
	}
	var tables []string
	if args[0] != nil {
		if _, ok := head.State.TableByName(*args[0]); !ok {
			return nil, errf(CodeUndefinedTable, "relation %q does not exist", *args[0])
		}
		tables = []string{*args[0]}
	}
	rc, err := g.OptimizeWith(ctx, adapters.OptimizeOptions{Branch: branch, Tables: tables,
		Actor: env.Actor, Application: env.Application, Client: env.Client})
	if err != nil {
		return nil, sqlError(what, branch, err)
	}
	if rc == nil {
		return nil, nil // nothing to compact
	}
	return rc.CommitID, nil
}

// cleanup reclaims unreachable files (adapters.Graph.Cleanup with its
// defaults: 24h grace, recovery barrier first) and summarizes what it did.
func cleanup(ctx context.Context, g *adapters.Graph, _ Env, _ []*string) (any, error) {
	rep, err := g.Cleanup(ctx, adapters.CleanupOptions{})
	if err != nil {
		return nil, sqlError("graph.cleanup", "", err)
	}
	return cleanupSummary(rep), nil
}

func cleanupSummary(r adapters.CleanupReport) string {
	s := fmt.Sprintf("%d files deleted (%d bytes), %d orphan datasets reclaimed, %d staging files swept; %d datasets examined",
		len(r.Deleted), r.DeletedBytes, len(r.OrphanDatasets), r.StagingSwept, r.Datasets)
	if len(r.Skipped) > 0 {
		s += fmt.Sprintf(", %d skipped", len(r.Skipped))
	}
	return s
}

// recoverIntents resolves every pending intent it may act on and returns
// how many it resolved (the decisions are in graph.audit).
func recoverIntents(ctx context.Context, g *adapters.Graph, _ Env, _ []*string) (any, error) {
	reps, err := g.Recovery.Recover(ctx)
	if err != nil {
		return nil, sqlError("graph.recover", "", err)
	}
	var n int64
	for _, r := range reps {
		switch r.Decision {
		case recovery.Vanished, recovery.SkippedLive, recovery.Refused:
		default:
			n++
		}
	}
	return n, nil
}
