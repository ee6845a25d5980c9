package wire

import (
	"errors"
	"fmt"
	"syscall"
)

// Storage failures reach the client with PostgreSQL's SQLSTATEs, whatever
// layer they passed through: a full disk (ENOSPC, or a quota: EDQUOT) is
// 53100 disk_full, an I/O error (EIO, or a file system gone read-only:
// EROFS) 58030 io_error. The message names the operation — never a file
// path or object key, which are internal — and the rest of the error
// chain stays in Cause for the server log. Codes a layer chose for other
// reasons are kept; only XX000 (unclassified), 55000 (a write left for
// recovery) and 58030 are refined.

// errorChain joins the messages of err's chain (an *Error prints only its
// own message) for the server log.
func errorChain(err error) error {
	text := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		if pe, ok := e.(*Error); ok {
			if text != "" {
				text += ": "
			}
			text += pe.Message
			continue
		}
		if text != "" {
			text += ": "
		}
		return errors.New(text + e.Error())
	}
	return errors.New(text)
}

// storageOp is what an error from the object store tells about the
// failed operation (objstore.OpError implements it).
type storageOp interface{ Operation() string }

// storageOpText describes an object store operation for a message.
var storageOpText = map[string]string{
	"get": "read from the data directory", "getrange": "read from the data directory",
	"put": "write to the data directory", "putifabsent": "write to the data directory",
	"delete": "remove from the data directory", "list": "list the data directory",
	"stat": "read from the data directory",
}

// storageError classifies err; nil when it is not a storage failure.
func storageError(err error) *Error {
	var code, text string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		code, text = CodeDiskFull, "No space left on device"
	case errors.Is(err, syscall.EDQUOT):
		code, text = CodeDiskFull, "Disk quota exceeded"
	case errors.Is(err, syscall.EIO):
		code, text = CodeIOError, "Input/output error"
	case errors.Is(err, syscall.EROFS):
		code, text = CodeIOError, "Read-only file system"
	default:
		return nil
	}
	op := "access the data directory"
	var so storageOp
	if errors.As(err, &so) {
		if t, ok := storageOpText[so.Operation()]; ok {
			op = t
		}
	}
	e := &Error{Severity: SeverityError, Code: code, Message: fmt.Sprintf("could not %s: %s", op, text), Cause: err}
	if code == CodeDiskFull {
		e.Hint = "Check free disk space."
	}
	return e
}

// refine replaces e by the storage error in its chain, if any: always
// for XX000 and 55000, and for a 58030 (whose message already names what
// failed) only when the disk is full.
func refine(e *Error) *Error {
	if e.Code != CodeInternalError && e.Code != CodeObjectNotInState && e.Code != CodeIOError {
		return e
	}
	se := storageError(e)
	if se == nil || (e.Code == CodeIOError && se.Code != CodeDiskFull) {
		return e
	}
	return se
}
