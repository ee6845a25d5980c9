package exec

import "github.com/google/uuid"

// gen_random_uuid: a random (version 4) UUID.

func init() {
	def("gen_random_uuid", sig(TUUID, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = uuid.NewString()
		}
		return nil
	}))
}
