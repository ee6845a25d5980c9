package graphsql

import (
	"context"
	"errors"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/wire"
)

// SQLSTATEs this package answers with (besides those it passes through
// from the executor and the write path).
const (
	CodeUndefinedFunction      = pgerr.UndefinedFunction          // graph.f does not exist
	CodeSyntaxError            = pgerr.SyntaxError                // wrong number of arguments, unusable call shape
	CodeInvalidParameterValue  = pgerr.InvalidParameterValue      // unknown commit / version, timestamp before history
	CodeInvalidDatetimeFormat  = pgerr.InvalidDatetimeFormat      // as-of text that is no commit, version or timestamp
	CodeNullValueNotAllowed    = pgerr.NullValueNotAllowed        // a required argument is NULL
	CodeActiveSQLTransaction   = pgerr.ActiveSQLTransaction       // graph.f inside BEGIN … COMMIT
	CodeNoActiveSQLTransaction = pgerr.NoActiveSQLTransaction     // graph.merge strategy 'stop' outside one
	CodeReadOnly               = pgerr.ReadOnlySQLTransaction     // graph.f in a read-only session (SET graph.as_of)
	CodeInvalidCatalogName     = pgerr.InvalidCatalogName         // unknown branch
	CodeDuplicateObject        = pgerr.DuplicateObject            // branch exists
	CodeInvalidName            = pgerr.InvalidName                // reserved or malformed branch name
	CodeDependentObjects       = pgerr.DependentObjectsStillExist // branch has child branches
	CodeObjectInUse            = pgerr.ObjectInUse                // deleting the session's own branch
	CodeUndefinedTable         = pgerr.UndefinedTable             // graph.optimize('missing')
	CodeFeatureNotSupported    = pgerr.FeatureNotSupported        // operation not available in this build
	CodeInternalError          = pgerr.InternalError
)

func errf(code, format string, args ...any) *wire.Error { return wire.Errorf(code, format, args...) }

// IsUndefinedFunction reports a call of a graph.f that does not exist.
func IsUndefinedFunction(err error) bool { return wire.IsCode(err, CodeUndefinedFunction) }

// IsUnknownBranch reports a branch that does not exist (3D000).
func IsUnknownBranch(err error) bool { return wire.IsCode(err, CodeInvalidCatalogName) }

// IsBranchExists reports a create_branch whose name is taken (42710).
func IsBranchExists(err error) bool { return wire.IsCode(err, CodeDuplicateObject) }

// IsUnknownSnapshot reports an as-of value naming no commit of the
// branch's history: unknown commit id, version beyond the head or
// reclaimed, timestamp before the first commit (22023).
func IsUnknownSnapshot(err error) bool { return wire.IsCode(err, CodeInvalidParameterValue) }

// IsMalformedAsOf reports an as-of value that is neither a commit id, a
// manifest version nor a timestamp (22007).
func IsMalformedAsOf(err error) bool { return wire.IsCode(err, CodeInvalidDatetimeFormat) }

// IsInTransactionBlock reports a graph procedure refused inside an
// explicit transaction block (25001).
func IsInTransactionBlock(err error) bool { return wire.IsCode(err, CodeActiveSQLTransaction) }

// IsNotAvailable reports an operation this build cannot run yet (0A000).
func IsNotAvailable(err error) bool { return wire.IsCode(err, CodeFeatureNotSupported) }

// sqlError turns an error of the write path (graph, lance, protocol,
// recovery) into a *wire.Error with its SQLSTATE and a message fit for a
// client; what names the operation ("graph.create_branch"). Errors that
// are *wire.Error already, and context cancellations, pass unchanged.
func sqlError(what, branch string, err error) error {
	if err == nil {
		return nil
	}
	var we *wire.Error
	if errors.As(err, &we) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var out *wire.Error
	switch {
	case errors.Is(err, graph.ErrBranchExists):
		out = errf(CodeDuplicateObject, "branch %q already exists", branch)
	case errors.Is(err, graph.ErrUnknownBranch), errors.Is(err, lance.ErrBranchNotFound):
		out = errf(CodeInvalidCatalogName, "branch %q does not exist", branch)
	case errors.Is(err, graph.ErrBranchInUse):
		out = errf(CodeDependentObjects, "cannot delete branch %q because other branches were created from it", branch).
			WithHint("Delete the branches created from it first.")
	case errors.Is(err, graph.ErrInvalidBranch):
		out = errf(CodeInvalidName, "invalid branch name %q", branch).WithDetail(err.Error())
	case errors.Is(err, graph.ErrSnapshotNotFound):
		out = errf(CodeInvalidParameterValue, "%s: no such snapshot on branch %q", what, branch).WithDetail(err.Error())
	default:
		var pe *protocol.Error
		if errors.As(err, &pe) {
			out = errf(pe.SQLState(), "%s", pe.Message)
			out.Detail = pe.Detail
			if pe.OperationID != "" && out.Detail == "" {
				out.Detail = "operation " + pe.OperationID
			}
		} else {
			out = errf(CodeInternalError, "%s failed", what).WithDetail(err.Error())
		}
	}
	out.Cause = err
	return out
}
