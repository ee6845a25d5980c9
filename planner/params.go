package planner

import "github.com/pggraph/pggraph/exec"

// DecodeParam implements wire.ParamDecoder: exec reads Bind parameters
// with its own input rules (text) and the types' binary layouts, so every
// type a statement can have is a parameter type in both formats.
func (s *session) DecodeParam(oid uint32, format int16, src []byte, index int) (any, error) {
	v, err := exec.DecodeParam(oid, format, src, index)
	if err != nil {
		return nil, err
	}
	return v, nil
}
