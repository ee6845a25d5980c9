package planner

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/replication"
	"github.com/pggraph/pggraph/wire"
)

// The replication commands of a replication=database connection
// (docs/architecture.md, "Logical replication"): slots live in the
// root (package replication) and stream one branch — the connection's
// database — through the pgoutput plugin (replication_stream.go).

// checkReplicationRole refuses a replication connection to a role
// without the REPLICATION attribute (superusers have it), as PostgreSQL
// does at connection start.
func (b *Backend) checkReplicationRole(ctx context.Context, info wire.SessionInfo) error {
	if info.Startup["replication"] != "database" || b.Access == nil {
		return nil
	}
	c, err := b.Access.Current(ctx)
	if err != nil {
		return wire.Errorf(pgerr.IOError, "could not read the role catalog").WithDetail(err.Error())
	}
	if c.Bootstrap() {
		return nil
	}
	if r := c.Role(info.User); r == nil || !r.Replication && !r.Superuser {
		return wire.Errorf(wire.CodeInsufficientPrivilege, "must be superuser or replication role to start walsender")
	}
	return nil
}

// replicationStore is the root's slots and publications.
func (s *session) replicationStore() *replication.Store { return s.backend.Replication }

// streamBranch is the branch a replication connection streams.
func (s *session) streamBranch() string {
	if b := s.branch(); b != "" {
		return b
	}
	return graph.MainBranch
}

// IdentifySystem implements wire.Replicator.
func (s *session) IdentifySystem(ctx context.Context) (wire.SystemIdentity, error) {
	head, err := s.root.Head(ctx, s.streamBranch())
	if err != nil {
		return wire.SystemIdentity{}, storageFailed(err, "could not read the head of branch %q", s.streamBranch())
	}
	// PostgreSQL's system identifier is a 64-bit number; the graph's is
	// its id, hashed to one
	h := fnv.New64a()
	h.Write([]byte(s.root.RootCommitID()))
	return wire.SystemIdentity{SystemID: strconv.FormatUint(h.Sum64()>>1, 10), Timeline: 1,
		XLogPos: uint64(replication.StartAfter(head.Version)), DBName: s.streamBranch()}, nil
}

// slotNameError is PostgreSQL's check of a slot name.
func slotNameError(name string) error {
	if replication.ValidSlotName(name) {
		return nil
	}
	if len(name) > 63 {
		return wire.Errorf(pgerr.NameTooLong, "replication slot name \"%s\" is too long", name)
	}
	return wire.Errorf(pgerr.InvalidName, "replication slot name \"%s\" contains invalid character", name).
		WithHint("Replication slot names may only contain lower case letters, numbers, and the underscore character.")
}

// CreateReplicationSlot implements wire.Replicator.
func (s *session) CreateReplicationSlot(ctx context.Context, cmd *wire.ReplicationCommand) (wire.CreatedSlot, error) {
	if err := slotNameError(cmd.Slot); err != nil {
		return wire.CreatedSlot{}, err
	}
	if cmd.Temporary {
		return wire.CreatedSlot{}, wire.Errorf(wire.CodeFeatureNotSupported, "temporary replication slots are not supported")
	}
	if cmd.Plugin != "pgoutput" {
		return wire.CreatedSlot{}, wire.Errorf(wire.CodeFeatureNotSupported, "logical decoding output plugin \"%s\" is not supported", cmd.Plugin).
			WithHint("pggraph streams the pgoutput plugin's messages only.")
	}
	for _, o := range cmd.Options {
		switch {
		case o[0] == "SNAPSHOT" && (o[1] == "nothing" || o[1] == "export"),
			o[0] == "EXPORT_SNAPSHOT", o[0] == "NOEXPORT_SNAPSHOT":
			// no snapshot is exported (snapshot_name is NULL): a consumer
			// reads the data as of the slot's start with graph.as_of
		case o[0] == "SNAPSHOT" || o[0] == "USE_SNAPSHOT":
			return wire.CreatedSlot{}, wire.Errorf(wire.CodeFeatureNotSupported, "CREATE_REPLICATION_SLOT with SNAPSHOT '%s' is not supported", o[1])
		case o[0] == "TWO_PHASE":
			return wire.CreatedSlot{}, wire.Errorf(wire.CodeFeatureNotSupported, "two-phase decoding is not supported")
		default:
			return wire.CreatedSlot{}, wire.Errorf(wire.CodeSyntaxError, "unrecognized option \"%s\"", strings.ToLower(o[0]))
		}
	}
	head, err := s.root.Head(ctx, s.streamBranch())
	if err != nil {
		return wire.CreatedSlot{}, storageFailed(err, "could not read the head of branch %q", s.streamBranch())
	}
	start := replication.StartAfter(head.Version)
	sl := replication.Slot{Name: cmd.Slot, Plugin: cmd.Plugin, Database: s.streamBranch(), ConfirmedFlush: start, Created: time.Now().UTC()}
	if err := s.replicationStore().CreateSlot(ctx, sl); err != nil {
		if errors.Is(err, replication.ErrExists) {
			return wire.CreatedSlot{}, wire.Errorf(pgerr.DuplicateObject, "replication slot \"%s\" already exists", cmd.Slot)
		}
		return wire.CreatedSlot{}, storageFailed(err, "could not create replication slot %q", cmd.Slot)
	}
	return wire.CreatedSlot{Name: cmd.Slot, ConsistentPoint: uint64(start), Plugin: cmd.Plugin}, nil
}

// DropReplicationSlot implements wire.Replicator.
func (s *session) DropReplicationSlot(ctx context.Context, cmd *wire.ReplicationCommand) error {
	err := s.replicationStore().DropSlot(ctx, cmd.Slot)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, replication.ErrNotFound):
		return wire.Errorf(wire.CodeUndefinedObject, "replication slot \"%s\" does not exist", cmd.Slot)
	case errors.Is(err, replication.ErrActive):
		return wire.Errorf(pgerr.ObjectInUse, "replication slot \"%s\" is active for PID %d", cmd.Slot, s.replicationStore().ActivePID(cmd.Slot))
	}
	return storageFailed(err, "could not drop replication slot %q", cmd.Slot)
}

// pgoutputOptions are START_REPLICATION's plugin options.
type pgoutputOptions struct {
	publications []string
}

// parsePgoutputOptions checks the options as pgoutput does.
func parsePgoutputOptions(opts [][2]string) (pgoutputOptions, error) {
	var o pgoutputOptions
	proto, pubs := false, false
	for _, kv := range opts {
		switch kv[0] {
		case "proto_version":
			v, err := strconv.Atoi(kv[1])
			if err != nil {
				return o, wire.Errorf(wire.CodeInvalidParameterValue, "invalid proto_version")
			}
			if v < 1 || v > 3 {
				return o, wire.Errorf(wire.CodeFeatureNotSupported, "client sent proto_version=%d but server only supports protocol 1 to 3", v)
			}
			proto = true
		case "publication_names":
			names, err := splitIdentifiers(kv[1])
			if err != nil {
				return o, wire.Errorf(wire.CodeInvalidParameterValue, "invalid publication_names syntax")
			}
			o.publications, pubs = names, true
		case "binary", "streaming", "two_phase":
			if on, _ := parseBoolOption(kv[1]); on {
				return o, wire.Errorf(wire.CodeFeatureNotSupported, "pgoutput option %s is not supported", kv[0])
			}
		case "messages", "origin":
			// no logical decoding messages or origins exist to filter
		default:
			return o, wire.Errorf(wire.CodeInvalidParameterValue, "unrecognized pgoutput option: %s", kv[0])
		}
	}
	if !proto {
		return o, wire.Errorf(wire.CodeInvalidParameterValue, "proto_version option missing")
	}
	if !pubs {
		return o, wire.Errorf(wire.CodeInvalidParameterValue, "publication_names parameter missing")
	}
	return o, nil
}

func parseBoolOption(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "", "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

// splitIdentifiers reads a comma-separated list of identifiers
// (double quotes keep case and commas), as PostgreSQL's
// SplitIdentifierString.
func splitIdentifiers(s string) ([]string, error) {
	var out []string
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var name string
		if i < len(s) && s[i] == '"' {
			var b strings.Builder
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated quoted identifier")
				}
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			name = b.String()
		} else {
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ' ' {
				j++
			}
			name = strings.ToLower(s[i:j])
			i = j
		}
		if name == "" {
			return nil, fmt.Errorf("empty identifier")
		}
		out = append(out, name)
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("junk after identifier")
		}
		i++
	}
}

// StartReplication implements wire.Replicator.
func (s *session) StartReplication(ctx context.Context, cmd *wire.ReplicationCommand) (wire.ReplicationStream, error) {
	store := s.replicationStore()
	sl, err := store.Slot(ctx, cmd.Slot)
	if errors.Is(err, replication.ErrNotFound) {
		return nil, wire.Errorf(wire.CodeUndefinedObject, "replication slot \"%s\" does not exist", cmd.Slot)
	}
	if err != nil {
		return nil, storageFailed(err, "could not read replication slot %q", cmd.Slot)
	}
	if sl.Database != s.streamBranch() {
		return nil, wire.Errorf(wire.CodeObjectNotInState, "replication slot \"%s\" was not created in this database", cmd.Slot)
	}
	opts, err := parsePgoutputOptions(cmd.Options)
	if err != nil {
		return nil, err
	}
	if _, err := s.publications(ctx, opts.publications); err != nil {
		return nil, err
	}
	release, holder, ok := store.Acquire(cmd.Slot, s.info.ProcessID)
	if !ok {
		return nil, wire.Errorf(pgerr.ObjectInUse, "replication slot \"%s\" is active for PID %d", cmd.Slot, holder)
	}
	// as PostgreSQL: a start before the confirmed position starts there
	start := max(replication.LSN(cmd.StartLSN), sl.ConfirmedFlush)
	return &replStream{s: s, slot: cmd.Slot, branch: sl.Database, pubs: opts.publications, release: release,
		start: start, walEnd: start, rels: map[uint32]string{}}, nil
}

// publications reads the named publications (42704 for a missing one).
func (s *session) publications(ctx context.Context, names []string) ([]replication.Publication, error) {
	out := make([]replication.Publication, 0, len(names))
	for _, n := range names {
		p, err := s.replicationStore().PublicationByName(ctx, n)
		if errors.Is(err, replication.ErrNotFound) {
			return nil, wire.Errorf(wire.CodeUndefinedObject, "publication \"%s\" does not exist", n)
		}
		if err != nil {
			return nil, storageFailed(err, "could not read publication %q", n)
		}
		out = append(out, p)
	}
	return out, nil
}

// replicationObjects lists the root's publications and slots for the
// catalogs (pg_publication, pg_replication_slots). The catalogs cannot
// fail a query: an unreadable store lists none (and the replication
// commands report the storage error).
func (s *session) replicationObjects() exec.ReplicationObjects {
	st := s.replicationStore()
	if st == nil {
		return exec.ReplicationObjects{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out exec.ReplicationObjects
	if pubs, err := st.Publications(ctx); err == nil {
		for _, p := range pubs {
			out.Publications = append(out.Publications, exec.Publication{OID: p.OID(), Name: p.Name, Owner: p.Owner, AllTables: p.AllTables,
				Insert: p.Insert, Update: p.Update, Delete: p.Delete, Truncate: p.Truncate, Tables: p.Tables})
		}
	}
	if slots, err := st.Slots(ctx); err == nil {
		for _, sl := range slots {
			out.Slots = append(out.Slots, exec.ReplicationSlot{Name: sl.Name, Plugin: sl.Plugin, Database: sl.Database,
				ActivePID: int32(st.ActivePID(sl.Name)), ConfirmedFlush: sl.ConfirmedFlush.String()})
		}
	}
	return out
}
