package lance

// Every commit of this package's tests checks that the manifest it
// keeps in memory is exactly what decoding its stored bytes gives
// (tryPublish no longer decodes them).
func init() { verifyPublished = true }
