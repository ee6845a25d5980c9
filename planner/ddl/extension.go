package ddl

import (
	"fmt"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Extensions (CREATE EXTENSION, DROP EXTENSION).
//
// The extensions pggraph has built in — their functions and types are
// part of the engine — can be created and dropped; each created one is a
// manifest entry (ExtensionEntryPrefix + name, the view placeholder as
// its definition, Relkind RelExtension, metadata version 4) so that
// pg_extension lists it per branch, as PostgreSQL's per-database
// catalog does, and CREATE without IF NOT EXISTS answers 42710 the
// second time. plpgsql is always there (PostgreSQL's initdb creates it).
// Any other name answers PostgreSQL's error for an extension whose
// control file is not installed (0A000).

// RelExtension is the relation kind of a created extension's entry.
const RelExtension = "extension"

// ExtensionEntryPrefix starts the manifest name of a created extension.
const ExtensionEntryPrefix = "ext:"

// ExtensionMeta is a created extension: its version.
type ExtensionMeta struct {
	Version string `json:"version"`
}

// builtinExtensions are the extensions pggraph has natively, with the
// version pg_extension reports (PostgreSQL 15's for its contrib ones):
// vector (the vector(n) type), pgcrypto (gen_random_uuid, digest, hmac,
// gen_random_bytes) and uuid-ossp (uuid_generate_v1…v5).
var builtinExtensions = map[string]string{"vector": "0.8.0", "pgcrypto": "1.3", "uuid-ossp": "1.1"}

// ExtensionName returns the extension name of a manifest entry name.
func ExtensionName(entry string) (string, bool) {
	if len(entry) > len(ExtensionEntryPrefix) && entry[:len(ExtensionEntryPrefix)] == ExtensionEntryPrefix {
		return entry[len(ExtensionEntryPrefix):], true
	}
	return "", false
}

// ExecExtension is the executor's description of an extension entry.
func ExecExtension(e graph.TableEntry, name string, m TableMeta) exec.ExtensionDef {
	d := exec.ExtensionDef{Name: name, Owner: m.Owner}
	if m.Extension != nil {
		d.Version = m.Extension.Version
	}
	d.OID = e.RelOID()
	return d
}

func (pc *planCtx) extension(name string) (graph.TableEntry, bool, error) {
	e, m, ok, err := pc.v.table(ExtensionEntryPrefix + name)
	if err != nil || !ok || m.Relkind != RelExtension {
		return graph.TableEntry{}, false, err
	}
	return e, true, nil
}

func (pc *planCtx) createExtension(st *q.CreateExtensionStmt) ([]Change, error) {
	skip := []Change{&NoOp{CommandTag: "CREATE EXTENSION", notes: notes{[]*pgerr.Error{
		notice(CodeDuplicateObject, "extension \"%s\" already exists, skipping", st.Extname)}}}}
	version, ok := builtinExtensions[st.Extname]
	switch {
	case st.Extname == "plpgsql":
		if st.IfNotExists {
			return skip, nil
		}
		return nil, errorf(CodeDuplicateObject, "extension \"%s\" already exists", st.Extname)
	case !ok:
		return nil, errorf(CodeFeatureNotSupported, "extension \"%s\" is not available", st.Extname).
			WithDetail(fmt.Sprintf("Could not open extension control file \"/usr/share/postgresql/15/extension/%s.control\": No such file or directory.", st.Extname)).
			WithHint("The extension must first be installed on the system where PostgreSQL is running.")
	}
	if _, exists, err := pc.extension(st.Extname); err != nil {
		return nil, err
	} else if exists {
		if st.IfNotExists {
			return skip, nil
		}
		return nil, errorf(CodeDuplicateObject, "extension \"%s\" already exists", st.Extname)
	}
	m := TableMeta{Version: metaVersionTypes, Relkind: RelExtension, Graph: GraphMeta{Kind: graph.RelationTable}, Extension: &ExtensionMeta{Version: version}}
	return []Change{&CreateTable{Name: ExtensionEntryPrefix + st.Extname, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
}

// dropExtensions plans DROP EXTENSION.
func (pc *planCtx) dropExtensions(st *q.DropStmt) ([]Change, error) {
	var out []Change
	var ns []*pgerr.Error
	for _, o := range st.Objects {
		n := o.GetString_().GetSval()
		_, ok, err := pc.extension(n)
		if err != nil {
			return nil, err
		}
		if !ok {
			if !st.MissingOk {
				return nil, errorf(CodeUndefinedObject, "extension \"%s\" does not exist", n)
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "extension \"%s\" does not exist, skipping", n))
			continue
		}
		out = append(out, &DropTable{Name: ExtensionEntryPrefix + n, CommandTag: "DROP EXTENSION"})
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP EXTENSION", notes: notes{ns}}}, nil
	}
	out[0].(*DropTable).Notice = ns
	return out, nil
}
