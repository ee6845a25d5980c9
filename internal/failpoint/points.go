package failpoint

// Every failpoint in the system. Name them <package>/<where>.
const (
	// ServeBeforeListen fires in `pgproxy serve` after the data directory
	// is opened and before the listener is created.
	ServeBeforeListen Point = "cmd/serve-before-listen"
	// InitAfterStamp fires in `pgproxy init` after the format stamp is
	// durable and before the rest of the root is created.
	InitAfterStamp Point = "cmd/init-after-stamp"
)

// All lists every declared point, for tests that sweep them.
var All = []Point{ServeBeforeListen, InitAfterStamp}
