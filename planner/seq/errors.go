package seq

import (
	"errors"

	"github.com/pggraph/pggraph/pgerr"
)

// Sentinel errors of the allocator itself (not SQL errors).
var (
	// ErrInvalidKey: a sequence key that is not one safe object-key segment.
	ErrInvalidKey = errors.New("seq: invalid sequence key")
	// ErrInvalidOptions: increment 0, empty range or start outside it.
	ErrInvalidOptions = errors.New("seq: invalid sequence options")
	// ErrCorrupt: a stored block does not decode.
	ErrCorrupt = errors.New("seq: corrupt sequence block")
	// ErrContended: too many lost claim races in a row.
	ErrContended = errors.New("seq: sequence block claims keep losing races")
)

// SQLSTATEs of sequence errors.
const (
	CodeSequenceLimit   = pgerr.SequenceGeneratorLimitExceeded // sequence_generator_limit_exceeded
	CodeNotInState      = pgerr.ObjectNotInPrerequisiteState   // object_not_in_prerequisite_state (currval before nextval)
	CodeNumericOutOfRng = pgerr.NumericValueOutOfRange         // setval out of bounds
)

// IsExhausted reports a sequence that reached its bound without CYCLE (2200H).
func IsExhausted(err error) bool { return code(err) == CodeSequenceLimit }

// IsNotYetDefined reports currval/lastval before any nextval in the session (55000).
func IsNotYetDefined(err error) bool { return code(err) == CodeNotInState }

func code(err error) string {
	var we *pgerr.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}
