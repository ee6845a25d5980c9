package graphsql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/wire"
)

func TestSQLError(t *testing.T) {
	cases := []struct {
		err  error
		code string
		msg  string
	}{
		{&graph.BranchError{Branch: "b", Err: graph.ErrBranchExists}, CodeDuplicateObject, `branch "b" already exists`},
		{protocol.Errorf(protocol.KindInvalid, &graph.BranchError{Branch: "b", Err: graph.ErrBranchExists}, "x"), CodeDuplicateObject, `branch "b" already exists`},
		{&graph.BranchError{Branch: "b", Err: graph.ErrUnknownBranch}, CodeInvalidCatalogName, `branch "b" does not exist`},
		{fmt.Errorf("%w: children", graph.ErrBranchInUse), CodeDependentObjects, `cannot delete branch "b"`},
		{fmt.Errorf("%w: reserved", graph.ErrInvalidBranch), CodeInvalidName, `invalid branch name "b"`},
		{fmt.Errorf("%w: gone", graph.ErrSnapshotNotFound), CodeInvalidParameterValue, "no such snapshot"},
		{&protocol.Error{Kind: protocol.KindReadSetChanged, Message: "table t changed"}, "40001", "table t changed"},
		{&protocol.Error{Kind: protocol.KindContention, Message: "busy", OperationID: "OP"}, "55P03", "busy"},
		{errors.New("disk on fire"), CodeInternalError, "graph.x failed"},
		{wire.Errorf("42P01", "relation"), "42P01", "relation"},
	}
	for _, c := range cases {
		err := sqlError("graph.x", "b", c.err)
		wantCode(t, err, c.code)
		we := asWire(err)
		if !strings.Contains(we.Message, c.msg) {
			t.Fatalf("%v → message %q, want %q", c.err, we.Message, c.msg)
		}
		if !errors.Is(err, c.err) && we.Cause != c.err && err != c.err {
			t.Fatalf("%v: cause lost", c.err)
		}
	}
	if sqlError("x", "b", nil) != nil {
		t.Fatal("nil error converted")
	}
	if err := sqlError("x", "b", context.Canceled); err != context.Canceled {
		t.Fatalf("cancellation converted to %v", err)
	}
	if we := asWire(sqlError("x", "b", &protocol.Error{Kind: protocol.KindContention, Message: "busy", OperationID: "OP"})); we.Detail != "operation OP" {
		t.Fatalf("detail %q does not name the operation", we.Detail)
	}
	// the predicates
	for _, p := range []struct {
		is   func(error) bool
		code string
	}{
		{IsUndefinedFunction, CodeUndefinedFunction}, {IsUnknownBranch, CodeInvalidCatalogName},
		{IsBranchExists, CodeDuplicateObject}, {IsUnknownSnapshot, CodeInvalidParameterValue},
		{IsMalformedAsOf, CodeInvalidDatetimeFormat}, {IsInTransactionBlock, CodeActiveSQLTransaction},
		{IsNotAvailable, CodeFeatureNotSupported},
	} {
		if !p.is(fmt.Errorf("wrapped: %w", errf(p.code, "x"))) || p.is(errf("XX000", "x")) {
			t.Fatalf("predicate for %s", p.code)
		}
	}
}
