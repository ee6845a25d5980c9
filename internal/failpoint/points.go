package failpoint

// Every failpoint in the system. Name them <package>/<where>.
const (
	// ServeBeforeListen fires in `pgproxy serve` after the data directory
	// is opened and before the listener is created.
	ServeBeforeListen Point = "cmd/serve-before-listen"
	// InitAfterStamp fires in `pgproxy init` after the format stamp is
	// durable and before the rest of the root is created.
	InitAfterStamp Point = "cmd/init-after-stamp"
	// ProtocolAfterArm fires after a write's sidecar is durable, before
	// its first effect.
	ProtocolAfterArm Point = "protocol/after-arm"
	// ProtocolAfterEffects fires after every table effect landed, before
	// the confirmation.
	ProtocolAfterEffects Point = "protocol/after-effects"
	// ProtocolAfterConfirm fires after a write's confirmation is durable,
	// before its manifest CAS (a write that armed a sidecar).
	ProtocolAfterConfirm Point = "protocol/after-confirm"
	// ProtocolAfterPublish fires after the manifest CAS succeeded, before
	// the sidecar delete and the reply.
	ProtocolAfterPublish Point = "protocol/after-publish"
	// RecoveryAfterRestore fires in a rollback after the tables are
	// restored, before the rollback commit is published.
	RecoveryAfterRestore Point = "recovery/after-restore"
)

// All lists every declared point, for tests that sweep them.
var All = []Point{ServeBeforeListen, InitAfterStamp,
	ProtocolAfterArm, ProtocolAfterEffects, ProtocolAfterConfirm, ProtocolAfterPublish, RecoveryAfterRestore}
