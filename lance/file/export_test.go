package file

// Test helpers shared with the external interop test (package file_test).
var (
	AllTypesSchema = allTypesSchema
	RandomBatch    = randomBatch
	RowsOf         = rowsOf
	NewRand        = newRand
	Normalize      = normalize
	BigValuesBatch = bigValuesBatch
	BigListsBatch  = bigListsBatch
)
