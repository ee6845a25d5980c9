package planner

import (
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// nodeLocation is the byte offset in the statement text where expression
// n starts, as PostgreSQL's exprLocation reports it (-1 if unknown): the
// node's own location, or its left operand's when that starts earlier
// (an operator's location is the operator itself).
func nodeLocation(n *sqlparse.Node) int32 {
	if n == nil {
		return -1
	}
	if a := n.GetAExpr(); a != nil {
		if l := nodeLocation(a.Lexpr); l >= 0 && (a.Location < 0 || l < a.Location) {
			return l
		}
		return a.Location
	}
	if tc := n.GetTypeCast(); tc != nil {
		if l := nodeLocation(tc.Arg); l >= 0 && (tc.Location < 0 || l < tc.Location) {
			return l
		}
		return tc.Location
	}
	m := n.ProtoReflect()
	which := m.WhichOneof(m.Descriptor().Oneofs().ByName("node"))
	if which == nil || which.Kind() != protoreflect.MessageKind {
		return -1
	}
	inner := m.Get(which).Message()
	f := inner.Descriptor().Fields().ByName("location")
	if f == nil || f.Kind() != protoreflect.Int32Kind {
		return -1
	}
	return int32(inner.Get(f).Int())
}

// positioned gives err the 1-based character position of byte offset loc
// in sql, as PostgreSQL's error cursor (unchanged when loc is unknown).
func positioned(err *wire.Error, sql string, loc int32) *wire.Error {
	if loc < 0 || int(loc) > len(sql) {
		return err
	}
	return err.WithPosition(int32(utf8.RuneCountInString(sql[:loc])) + 1)
}

// literalTarget is a string literal of the client's statement and the
// column type it is assigned to.
type literalTarget struct {
	lit *sqlparse.Node
	t   exec.Type
	col string
}

// placeInputError gives an error that the planner's rewritten statement
// raised without a usable position the position PostgreSQL reports: for
// an input error (class 22) the client's literal that fails the same way,
// for a 42804 assignment mismatch the expression stored into the column.
// It only runs on the error path.
func placeInputError(err error, sql string, lits []literalTarget) error {
	we, ok := err.(*wire.Error)
	if !ok || we.Position != 0 {
		return err
	}
	if we.Code == pgerr.DatatypeMismatch {
		// an assignment whose type does not fit: PostgreSQL points at the
		// (first) expression stored into the column the message names
		for _, l := range lits {
			if strings.HasPrefix(we.Message, "column \""+l.col+"\" is of type ") {
				return positioned(we, sql, nodeLocation(l.lit))
			}
		}
		return err
	}
	if !strings.HasPrefix(we.Code, "22") {
		return err
	}
	for _, l := range lits {
		c := l.lit.GetAConst()
		if tc := l.lit.GetTypeCast(); tc != nil {
			// a typed literal (bool 'x', 'x'::int4): its text is read as the
			// cast's type, and PostgreSQL points at the string
			t, ok := castLiteralType(tc)
			if !ok {
				continue
			}
			c, l.t = tc.Arg.GetAConst(), t
		}
		if c == nil || c.GetSval() == nil {
			continue
		}
		var ee *exec.Error
		if cerr := exec.CheckInput(l.t, c.GetSval().Sval); errors.As(cerr, &ee) && ee.Code == we.Code && ee.Message == we.Message {
			return positioned(we, sql, c.Location)
		}
	}
	return err
}

// castLiteralType is the type of a cast of a string constant to a
// built-in type named without modifiers or array bounds.
func castLiteralType(tc *sqlparse.TypeCast) (exec.Type, bool) {
	tn := tc.TypeName
	if tn == nil || tc.Arg.GetAConst() == nil || len(tn.Typmods) > 0 || len(tn.ArrayBounds) > 0 {
		return exec.Type{}, false
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	if len(parts) != 1 {
		return exec.Type{}, false
	}
	return exec.TypeNamed(parts[0])
}
