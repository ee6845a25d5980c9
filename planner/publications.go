package planner

import (
	"context"
	"errors"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/replication"
	"github.com/pggraph/pggraph/wire"
)

// CREATE PUBLICATION … FOR TABLE t [, …] | FOR ALL TABLES [WITH
// (publish = '…')] and DROP PUBLICATION name [, …]: publications are
// stored in the root (package replication), not in a branch's commits,
// so, like role statements, they cannot run inside a transaction block
// (25001). A publication's tables are named as in the session's branch
// when it is created; a replication stream matches them by name.
// ALTER PUBLICATION and row filters / column lists answer 0A000.

// isPublicationStmt reports the statements publications.go runs.
func isPublicationStmt(n *q.Node) bool {
	switch x := n.Node.(type) {
	case *q.Node_CreatePublicationStmt, *q.Node_AlterPublicationStmt:
		return true
	case *q.Node_DropStmt:
		return x.DropStmt.RemoveType == q.ObjectType_OBJECT_PUBLICATION
	}
	return false
}

// executePublication runs a publication statement.
func (s *session) executePublication(ctx context.Context, p *plan) (wire.Result, error) {
	name, tag := "CREATE PUBLICATION", "CREATE PUBLICATION"
	switch p.node.Node.(type) {
	case *q.Node_AlterPublicationStmt:
		return nil, wire.Errorf(wire.CodeFeatureNotSupported, "ALTER PUBLICATION is not supported").
			WithHint("Drop the publication and create it again.")
	case *q.Node_DropStmt:
		name, tag = "DROP PUBLICATION", "DROP PUBLICATION"
	}
	if s.tx != nil && !s.tx.implicit {
		return nil, wire.Errorf(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", name)
	}
	if s.readOnly() {
		return nil, wire.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", name)
	}
	var err error
	switch x := p.node.Node.(type) {
	case *q.Node_CreatePublicationStmt:
		err = s.createPublication(ctx, x.CreatePublicationStmt)
	case *q.Node_DropStmt:
		err = s.dropPublications(ctx, x.DropStmt)
	}
	if err != nil {
		return nil, err
	}
	return &tagResult{tag: tag}, nil
}

// superuser reports whether the current role is a superuser (every role
// is on a root without a role catalog).
func (s *session) superuser(ctx context.Context) (bool, error) {
	c, err := s.roleCatalog(ctx)
	if err != nil {
		return false, err
	}
	if c.Bootstrap() {
		return true, nil
	}
	r := c.Role(s.currentRole())
	return r != nil && r.Superuser, nil
}

func (s *session) createPublication(ctx context.Context, st *q.CreatePublicationStmt) error {
	pub := replication.Publication{Name: st.Pubname, Owner: s.currentRole(), AllTables: st.ForAllTables,
		Insert: true, Update: true, Delete: true, Truncate: true}
	if st.ForAllTables {
		su, err := s.superuser(ctx)
		if err != nil {
			return err
		}
		if !su {
			return wire.Errorf(wire.CodeInsufficientPrivilege, "must be superuser to create FOR ALL TABLES publication")
		}
	}
	for _, o := range st.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		val := ""
		if d.Arg != nil {
			if sv := d.Arg.GetString_(); sv != nil {
				val = sv.Sval
			} else if b := d.Arg.GetBoolean(); b != nil {
				val = "false"
				if b.Boolval {
					val = "true"
				}
			} else if tn := d.Arg.GetTypeName(); tn != nil && len(tn.Names) > 0 {
				val = tn.Names[len(tn.Names)-1].GetString_().GetSval()
			}
		}
		switch d.Defname {
		case "publish":
			pub.Insert, pub.Update, pub.Delete, pub.Truncate = false, false, false, false
			for _, a := range strings.Split(val, ",") {
				switch strings.TrimSpace(strings.ToLower(a)) {
				case "insert":
					pub.Insert = true
				case "update":
					pub.Update = true
				case "delete":
					pub.Delete = true
				case "truncate":
					pub.Truncate = true
				case "":
				default:
					return wire.Errorf(pgerr.InvalidParameterValue, "unrecognized value for publication option \"publish\": \"%s\"", strings.TrimSpace(a))
				}
			}
		case "publish_via_partition_root":
			if on, ok := parseBoolOption(val); !ok || on {
				return wire.Errorf(wire.CodeFeatureNotSupported, "publish_via_partition_root is not supported (there are no partitioned tables)")
			}
		default:
			return wire.Errorf(wire.CodeSyntaxError, "unrecognized publication parameter: \"%s\"", d.Defname)
		}
	}
	head, err := s.root.Head(ctx, s.streamBranch())
	if err != nil {
		return storageFailed(err, "could not read the head of branch %q", s.streamBranch())
	}
	kind := q.PublicationObjSpecType_PUBLICATIONOBJ_TABLE
	for _, o := range st.Pubobjects {
		spec := o.GetPublicationObjSpec()
		if spec == nil {
			continue
		}
		if spec.Pubobjtype != q.PublicationObjSpecType_PUBLICATIONOBJ_CONTINUATION {
			kind = spec.Pubobjtype
		}
		if kind != q.PublicationObjSpecType_PUBLICATIONOBJ_TABLE {
			return wire.Errorf(wire.CodeFeatureNotSupported, "publications FOR TABLES IN SCHEMA are not supported")
		}
		var rel string
		switch {
		case spec.Pubtable != nil && spec.Pubtable.Relation != nil:
			rv := spec.Pubtable.Relation
			if rv.Schemaname != "" && rv.Schemaname != "public" {
				return wire.Errorf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", rv.Schemaname)
			}
			if spec.Pubtable.WhereClause != nil || len(spec.Pubtable.Columns) > 0 {
				return wire.Errorf(wire.CodeFeatureNotSupported, "publication row filters and column lists are not supported")
			}
			rel = rv.Relname
		default:
			rel = spec.Name
		}
		e, ok := head.State.TableByName(rel)
		if !ok {
			return wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", rel)
		}
		ti, err := s.tableInfoOf(ctx, e)
		if err != nil {
			return err
		}
		if ti.def.View != nil || ti.meta != nil && ti.meta.Relkind != "" && ti.meta.Relkind != ddl.RelTable {
			return wire.Errorf(pgerr.WrongObjectType, "cannot add relation \"%s\" to publication", rel).
				WithDetail("This operation is not supported for views and sequences.")
		}
		if !pubHas(pub.Tables, rel) {
			pub.Tables = append(pub.Tables, rel)
		}
	}
	if err := s.replicationStore().CreatePublication(ctx, pub); err != nil {
		if errors.Is(err, replication.ErrExists) {
			return wire.Errorf(pgerr.DuplicateObject, "publication \"%s\" already exists", st.Pubname)
		}
		return storageFailed(err, "could not create publication %q", st.Pubname)
	}
	return nil
}

func pubHas(tables []string, name string) bool {
	for _, t := range tables {
		if t == name {
			return true
		}
	}
	return false
}

func (s *session) dropPublications(ctx context.Context, st *q.DropStmt) error {
	su, err := s.superuser(ctx)
	if err != nil {
		return err
	}
	for _, o := range st.Objects {
		name := o.GetString_().GetSval()
		pub, err := s.replicationStore().PublicationByName(ctx, name)
		if errors.Is(err, replication.ErrNotFound) {
			if st.MissingOk {
				s.info.Notice(&wire.Error{Code: pgerr.SuccessfulCompletion, Message: "publication \"" + name + "\" does not exist, skipping"})
				continue
			}
			return wire.Errorf(wire.CodeUndefinedObject, "publication \"%s\" does not exist", name)
		}
		if err != nil {
			return storageFailed(err, "could not read publication %q", name)
		}
		if !su && pub.Owner != s.currentRole() {
			return wire.Errorf(wire.CodeInsufficientPrivilege, "must be owner of publication %s", name)
		}
		if err := s.replicationStore().DropPublication(ctx, name); err != nil && !errors.Is(err, replication.ErrNotFound) {
			return storageFailed(err, "could not drop publication %q", name)
		}
	}
	return nil
}
