package lance

import "strings"

// IsDataFileKey reports whether key names a Lance data file (…/data/
// <name>.lance). Data files get a fresh unique name when written and are
// never rewritten in place, by this implementation or the official one;
// a store may therefore keep such files open for reading
// (objstore.Local.CacheImmutableReads).
func IsDataFileKey(key string) bool {
	i := strings.LastIndexByte(key, '/')
	if i < 0 || !strings.HasSuffix(key, ".lance") || len(key)-i-1 <= len(".lance") {
		return false
	}
	dir := key[:i]
	return dir == dataDir || strings.HasSuffix(dir, "/"+dataDir)
}

// IsTransactionFileKey reports whether key names a Lance transaction
// file (…/_transactions/<read version>-<uuid>.txn). Its name is unique
// to one transaction, but the committer may rewrite it before publishing
// (rebased deletions), so it is not immutable: a store may cache only
// the bytes it wrote itself (objstore.S3.CacheOwnWrites).
func IsTransactionFileKey(key string) bool {
	i := strings.LastIndexByte(key, '/')
	if i < 0 || !strings.HasSuffix(key, ".txn") {
		return false
	}
	dir := key[:i]
	return dir == txnDir || strings.HasSuffix(dir, "/"+txnDir)
}
