package planner

import (
	"context"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/seq"
)

// Sequence privileges. A standalone sequence (CREATE SEQUENCE) keeps
// its owner and ACL in its definition like a table (ddl.TableMeta, see
// table_privileges.go); a serial or identity column's sequence is owned
// by its table's owner and keeps its ACL with the column
// (ddl.Sequence.ACL). A nil ACL is PostgreSQL's default for a sequence,
// the owner holding USAGE, SELECT and UPDATE. The sequence functions
// check them for the acting role as PostgreSQL 15 does: nextval needs
// USAGE or UPDATE, currval USAGE or SELECT, setval UPDATE (42501
// "permission denied for sequence s"); so does a serial column's
// default during INSERT or COPY FROM, while an identity column's is not
// checked (PostgreSQL's NextValueExpr skips the check).

// seqPriv is a resolved sequence's ownership for the privilege checks.
type seqPriv struct {
	name  string
	owner uint32
	acl   *access.TableACL
	// identity: an identity column's, whose own default (GENERATED …
	// AS IDENTITY) PostgreSQL does not check
	identity bool
	// held is what the acting role holds on it, once known (the
	// statement's cache in sessionSequences)
	held  access.TablePrivs
	known bool
}

// sequencePriv finds the owner and ACL of the sequence name in the
// writer's catalog (ok false when there is none).
func (w *writer) sequencePriv(name string) (seqPriv, bool) {
	for _, e := range w.v.pend.ddlOverlay(w.v.root).Tables() {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		if m.Sequence != nil && m.Relkind == ddl.RelSequence && m.Sequence.Name == name {
			return seqPriv{name: name, owner: m.Owner, acl: access.SequenceACL(m.Owner, m.ACL)}, true
		}
		for _, c := range m.Columns {
			if c.Sequence != nil && c.Sequence.Name == name {
				return seqPriv{name: name, owner: m.Owner, acl: access.SequenceACL(m.Owner, c.Sequence.ACL), identity: c.Identity != ""}, true
			}
		}
	}
	return seqPriv{}, false
}

// sequencePrivByKey is sequencePriv for the sequence with allocator
// key key (lastval knows only that).
func (w *writer) sequencePrivByKey(key string) (seqPriv, bool) {
	for _, e := range w.v.pend.ddlOverlay(w.v.root).Tables() {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		if m.Sequence != nil && m.Relkind == ddl.RelSequence && m.Sequence.Key == key {
			return w.sequencePriv(m.Sequence.Name)
		}
		for _, c := range m.Columns {
			if c.Sequence != nil && c.Sequence.Key == key {
				return w.sequencePriv(c.Sequence.Name)
			}
		}
	}
	return seqPriv{}, false
}

// checkLastval requires USAGE or SELECT on the sequence lastval reads,
// as PostgreSQL's lastval does.
func (q *sessionSequences) checkLastval(ctx context.Context) error {
	key, ok := q.s.seqSess.LastKey()
	if !ok {
		return nil // lastval reports it
	}
	root, pend, err := q.s.writeBase(ctx, nil)
	if err != nil {
		return execErr(err)
	}
	sp, ok := (&writer{s: q.s, v: newView(root, pend), ctx: ctx}).sequencePrivByKey(key)
	if !ok {
		return &exec.Error{Code: seq.CodeNotInState, Message: "lastval is not yet defined in this session"}
	}
	if err := checkSequencePriv(ctx, q.s, sp, access.PrivUsage|access.PrivSelect); err != nil {
		return execErr(err)
	}
	return nil
}

// checkSequence refuses the sequence function called with name unless
// the acting role holds one of anyOf on its sequence. What the role
// holds is looked up once per statement and name (a statement sees one
// catalog), not once per call: nextval over a million rows asks the
// role catalog once.
func (q *sessionSequences) checkSequence(ctx context.Context, name string, anyOf access.TablePrivs) error {
	sp := q.privs[name]
	if sp.name == "" {
		return nil
	}
	if !sp.known {
		held, err := heldOn(ctx, q.s, sp)
		if err != nil {
			return execErr(err)
		}
		sp.held, sp.known = held, true
		q.privs[name] = sp
	}
	if sp.held&anyOf == 0 {
		return execErr(errPermission("sequence", sp.name))
	}
	return nil
}

// heldOn is what the acting role holds on sp (everything when nothing
// is checked).
func heldOn(ctx context.Context, s *session, sp seqPriv) (access.TablePrivs, error) {
	pc, err := s.privileges(ctx)
	if err != nil {
		return 0, err
	}
	if pc == nil {
		return access.AllSequencePrivs, nil
	}
	held, _ := pc.c.TablePrivileges(pc.role, sp.owner, sp.acl)
	return held, nil
}

func checkSequencePriv(ctx context.Context, s *session, sp seqPriv, anyOf access.TablePrivs) error {
	if sp.name == "" {
		return nil
	}
	held, err := heldOn(ctx, s, sp)
	if err != nil {
		return err
	}
	if held&anyOf == 0 {
		return errPermission("sequence", sp.name)
	}
	return nil
}

// checkDefaultSequence checks the nextval of a column default naming a
// standalone sequence (DEFAULT nextval('s')) for the inserting role,
// as PostgreSQL evaluates defaults as the statement's user.
func (w *writer) checkDefaultSequence(name string) error {
	sp, ok := w.sequencePriv(name)
	if !ok || sp.identity {
		return nil
	}
	return checkSequencePriv(w.ctx, w.s, sp, access.PrivUsage|access.PrivUpdate)
}
