package wire

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
)

type fakeOpError struct {
	op  string
	err error
}

func (e *fakeOpError) Error() string {
	return fmt.Sprintf("objstore %s \"tables/t/data/x.lance\": %v", e.op, e.err)
}
func (e *fakeOpError) Unwrap() error     { return e.err }
func (e *fakeOpError) Operation() string { return e.op }

// TestStorageErrorCodes: storage failures get PostgreSQL's SQLSTATEs and
// a message naming the operation, never the key; codes chosen for other
// reasons stay.
func TestStorageErrorCodes(t *testing.T) {
	cases := []struct {
		name string
		err  error
		code string
		msg  string
	}{
		{"put_enospc", &fakeOpError{"put", syscall.ENOSPC}, "53100", "could not write to the data directory: No space left on device"},
		{"quota", &fakeOpError{"putifabsent", syscall.EDQUOT}, "53100", "could not write to the data directory: Disk quota exceeded"},
		{"read_eio", &fakeOpError{"getrange", syscall.EIO}, "58030", "could not read from the data directory: Input/output error"},
		{"erofs", fmt.Errorf("rename: %w", syscall.EROFS), "58030", "could not access the data directory: Read-only file system"},
		{"internal_wrapping_enospc", &Error{Code: CodeInternalError, Message: "the write failed", Cause: &fakeOpError{"put", syscall.ENOSPC}}, "53100", "could not write to the data directory: No space left on device"},
		{"recovery_wrapping_enospc", &Error{Code: CodeObjectNotInState, Message: "recovery required", Cause: syscall.ENOSPC}, "53100", "could not access the data directory: No space left on device"},
		{"io_error_message_kept", &Error{Code: CodeIOError, Message: "could not open table \"t\" at version 3", Cause: syscall.EIO}, "58030", "could not open table \"t\" at version 3"},
		{"io_error_on_full_disk", &Error{Code: CodeIOError, Message: "could not open table \"t\" at version 3", Cause: syscall.ENOSPC}, "53100", "could not access the data directory: No space left on device"},
		{"unique_violation_kept", &Error{Code: "23505", Message: "duplicate key", Cause: syscall.ENOSPC}, "23505", "duplicate key"},
		{"other", errors.New("boom"), "XX000", "internal error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := toPGError(context.Background(), c.err)
			if got.Code != c.code || got.Message != c.msg {
				t.Fatalf("got %s %q, want %s %q", got.Code, got.Message, c.code, c.msg)
			}
			if c.code == "53100" && got.Hint != "Check free disk space." {
				t.Fatalf("hint %q", got.Hint)
			}
		})
	}
}
