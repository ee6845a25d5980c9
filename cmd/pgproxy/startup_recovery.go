package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/recovery"
)

// startupRecoveryAttempts bounds how often serve retries resolving the
// interrupted writes before giving up on starting.
const startupRecoveryAttempts = 3

// recoverBeforeServing resolves every pending write intent whose owner
// is gone (rolls it forward or back) before serve accepts a connection.
// Otherwise a restarted server answers reads from a state the next
// write's recovery barrier changes: a confirmed but unpublished write
// absent from a read and visible after it, which a client that checked
// and retried applies twice (docs/operations.md, "Startup and shutdown").
//
// Intents of owners that may still be running (another serve on the
// same directory) are in-flight writes and are left to them. An intent
// recovery refuses to act on (foreign movement, an unreadable sidecar)
// only an operator resolves, so no automatic step will change what reads
// see: serve logs it and starts; the writes it overlaps answer 55000.
// Any other failure (the store unreachable mid-resolution) is retried,
// then stops serve from starting.
func recoverBeforeServing(ctx context.Context, g *adapters.Graph, log *logrus.Logger) error {
	var err error
	for attempt := 1; attempt <= startupRecoveryAttempts; attempt++ {
		var reps []recovery.Report
		reps, err = g.Recovery.Recover(ctx)
		transient := false
		for _, r := range reps {
			f := logrus.Fields{"operation_id": r.OperationID, "writer": string(r.WriterKind), "branch": r.Branch, "decision": string(r.Decision)}
			switch r.Decision {
			case recovery.Refused:
				log.WithFields(f).WithField("detail", r.Detail).Warn("an interrupted write needs an operator (pgproxy verify); writes it overlaps answer 55000")
			case recovery.SkippedLive:
				log.WithFields(f).Info("a write of another running process is in flight; left to it")
			case recovery.Vanished:
			default:
				if r.Decision == "" {
					transient = true
					continue
				}
				log.WithFields(f).Info("resolved an interrupted write before serving")
			}
		}
		if err == nil || (reps != nil && !transient) {
			// every published pin not written yet (commit path v2) is
			// materialized now, so the official Lance sees it too
			if err = adapters.MaterializeHeads(ctx, g.Root); err == nil {
				return nil
			}
		}
		if ctx.Err() != nil {
			break
		}
		log.WithError(err).WithField("attempt", attempt).Warn("resolving interrupted writes before serving failed; retrying")
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
	return fmt.Errorf("resolving interrupted writes before serving: %w; nothing is served until they are resolved (`pgproxy verify` shows them, `pgproxy recover` retries)", err)
}
