package objstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
)

// ErrNoConditionalWrites: the S3 server accepted a second create of one
// key: it ignores If-None-Match, and every commit point would be
// last-writer-wins.
var ErrNoConditionalWrites = errors.New("objstore: the S3 server does not honour If-None-Match: * (conditional create); pggraph's commits need it")

// CheckConditionalWrites proves the server refuses a second create of a
// key: PutIfAbsent of key, a second PutIfAbsent that must lose, a read
// that must return the first bytes, and a Delete. Four requests, run
// once when a process opens a root for writing, so a server that
// ignores the condition (some S3-compatible servers, some proxies) is
// refused up front instead of silently losing commits. key should be
// unique to the call and ignored by everything else in the root.
func (s *S3) CheckConditionalWrites(ctx context.Context, key string) error {
	var first, second [16]byte
	if _, err := rand.Read(first[:]); err != nil {
		return err
	}
	copy(second[:], first[:])
	second[0] ^= 0xff
	if err := s.PutIfAbsent(ctx, key, first[:]); err != nil {
		return fmt.Errorf("objstore: checking conditional writes: %w", err)
	}
	err := s.PutIfAbsent(ctx, key, second[:])
	got, gerr := s.Get(ctx, key)
	derr := s.Delete(ctx, key)
	switch {
	case err == nil || (gerr == nil && !bytes.Equal(got, first[:])):
		return fmt.Errorf("%w (a second create of %s succeeded)", ErrNoConditionalWrites, key)
	case !IsExists(err):
		return fmt.Errorf("objstore: checking conditional writes: %w", err)
	case gerr != nil:
		return fmt.Errorf("objstore: checking conditional writes: %w", gerr)
	case derr != nil:
		return fmt.Errorf("objstore: checking conditional writes: %w", derr)
	}
	return nil
}
