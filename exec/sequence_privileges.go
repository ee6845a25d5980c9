package exec

import (
	"github.com/pggraph/pggraph/access"
)

// has_sequence_privilege([role,] sequence, privileges) reads a
// sequence's owner and ACL as the planner enforces them (USAGE, SELECT,
// UPDATE, each optionally WITH GRANT OPTION). A sequence the catalog
// does not check (Checked false: a serial column's, which has no ACL of
// its own) answers true: nothing restricts it.
func parseSequencePrivs(list string) (want, opt access.TablePrivs, err error) {
	return parsePrivList(list, access.ParseSequencePriv)
}

func init() {
	const name = "has_sequence_privilege"
	defCustom(name, func(b *binder, args []Expr) (Expr, error) {
		withUser, err := bindPrivilegeArgs(b, name, args)
		if err != nil {
			return nil, err
		}
		cs := b.cat
		return &opExpr{name: name, t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			cat := ec.run.roleCatalog()
			seqs := cs.sequences()
			for _, i := range sel {
				role, rest, err := privilegeSubject(ec, cat, a, i, withUser)
				if err != nil {
					return err
				}
				var sd *SequenceDef
				if rest[0].T.Kind() == KStr {
					schema, name := splitSchemaName(rest[0].S[i])
					if sd = cs.sequenceByName(schema, name); sd == nil {
						if cs.table(schema, name) != nil {
							return errf(CodeWrongObjectType, "\"%s\" is not a sequence", rest[0].S[i])
						}
						return errf(CodeUndefinedTable, "relation \"%s\" does not exist", rest[0].S[i])
					}
				} else {
					oid := uint32(rest[0].I[i])
					for _, s := range seqs {
						if s.OID == oid {
							sd = s
						}
					}
				}
				want, opt, err := parseSequencePrivs(rest[1].S[i])
				if err != nil {
					return err
				}
				switch {
				case sd == nil:
					out.SetNull(int(i))
				case !sd.Checked:
					out.B[i] = true
				case role == nil:
					out.B[i] = false
				default:
					held, grantable := cat.TablePrivileges(role.OID, sd.Owner, access.SequenceACL(sd.Owner, sd.ACL))
					out.B[i] = held&want != 0 || grantable&opt != 0
				}
			}
			return nil
		}}, nil
	})
}
