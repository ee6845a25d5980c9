package lance

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance/schema"
)

// lanceFields converts an Arrow schema to Lance fields (ids depth-first
// from 0) and their encoded messages for a manifest or Overwrite.
func lanceFields(s *arrow.Schema) ([]schema.Field, [][]byte, error) {
	fs, err := schema.FromArrow(s)
	if err != nil {
		return nil, nil, err
	}
	return fs, encodeFields(fs), nil
}

func encodeFields(fs []schema.Field) [][]byte {
	out := make([][]byte, len(fs))
	for i, f := range fs {
		out[i] = schema.EncodeField(nil, f)
	}
	return out
}
