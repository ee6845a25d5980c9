package objstore

import "reflect"

// Backend is the store under store's wrappers (those with an Unwrap()
// Store method, such as the fencing one a transaction reads through),
// when it can key a map: caches of immutable objects key on it so that
// every wrapper of one backend shares them. ok=false for a store that is
// not comparable.
func Backend(store Store) (backend Store, ok bool) {
	for range 8 {
		u, isWrapper := store.(interface{ Unwrap() Store })
		if !isWrapper {
			break
		}
		inner := u.Unwrap()
		if inner == nil {
			break
		}
		store = inner
	}
	if store == nil || !reflect.TypeOf(store).Comparable() {
		return nil, false
	}
	return store, true
}
