package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Logical replication connections (startup parameter
// replication=database): the Query message carries either SQL or a
// replication command (replication_command.go). The session serves the
// commands through Replicator; wire owns the CopyBoth streaming:
// XLogData ('w') and keepalive ('k') messages out, standby status
// updates ('r') in, CopyDone from either side to end it.

// Replicator is an optional interface of a Session: the replication
// commands of a replication=database connection. A session without it
// refuses such connections (0A000).
type Replicator interface {
	// IdentifySystem answers IDENTIFY_SYSTEM.
	IdentifySystem(ctx context.Context) (SystemIdentity, error)
	// CreateReplicationSlot answers CREATE_REPLICATION_SLOT … LOGICAL.
	CreateReplicationSlot(ctx context.Context, cmd *ReplicationCommand) (CreatedSlot, error)
	// DropReplicationSlot answers DROP_REPLICATION_SLOT.
	DropReplicationSlot(ctx context.Context, cmd *ReplicationCommand) error
	// StartReplication checks START_REPLICATION SLOT … LOGICAL and
	// returns the stream; an error is reported before CopyBoth starts.
	StartReplication(ctx context.Context, cmd *ReplicationCommand) (ReplicationStream, error)
}

// SystemIdentity is IDENTIFY_SYSTEM's row.
type SystemIdentity struct {
	SystemID string
	Timeline int32
	XLogPos  uint64
	DBName   string
}

// CreatedSlot is CREATE_REPLICATION_SLOT's row.
type CreatedSlot struct {
	Name            string
	ConsistentPoint uint64
	Plugin          string
}

// WALMessage is one XLogData payload and the position it carries
// (0 for messages without one of their own, as PostgreSQL sends
// pgoutput's Relation messages).
type WALMessage struct {
	Start uint64
	Data  []byte
}

// ReplicationStream produces a slot's messages. Methods are called from
// the connection's goroutine only.
type ReplicationStream interface {
	// Next returns the messages of the next transaction ready to be
	// sent, nil when the stream is caught up. walEnd is the stream's
	// position after them (what keepalives report).
	Next(ctx context.Context) (msgs []WALMessage, walEnd uint64, err error)
	// Confirm records the client's flush position (standby status
	// update) durably.
	Confirm(ctx context.Context, flush uint64) error
	Close() error
}

// Streaming timings.
const (
	replicationPoll      = 100 * time.Millisecond // how often a caught-up stream looks for new commits
	replicationKeepalive = 10 * time.Second       // a keepalive after this long without a message
)

// replicationMode reads the startup parameter replication: "" (not a
// replication connection), "database" (logical), or an error.
func replicationMode(params map[string]string) (bool, *Error) {
	v, ok := params["replication"]
	if !ok {
		return false, nil
	}
	switch v {
	case "false", "off", "no", "0":
		return false, nil
	case "database":
		return true, nil
	case "true", "on", "yes", "1":
		return false, &Error{Severity: SeverityFatal, Code: CodeFeatureNotSupported,
			Message: "physical replication connections are not supported", Hint: "Use replication=database (logical replication)."}
	}
	return false, &Error{Severity: SeverityFatal, Code: CodeInvalidParameterValue, Message: `invalid value for parameter "replication": "` + v + `"`}
}

// replicationQuery runs one Query message holding a replication command.
func (c *conn) replicationQuery(sql string) error {
	c.inCycle = false
	err := c.runReplicationCommand(sql)
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && pe.Fatal() {
			return pe
		}
		if errors.Is(err, errClientGone) {
			return err
		}
		c.failStatement(err)
	}
	c.readyForQuery()
	return nil
}

func (c *conn) runReplicationCommand(sql string) error {
	cmd, err := parseReplicationCommand(sql)
	if err != nil {
		return err
	}
	r, ok := c.sess.(Replicator)
	if !ok {
		return Errorf(CodeFeatureNotSupported, "replication commands are not supported")
	}
	switch c.tx {
	case txFailed:
		return Errorf(CodeInFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	case txBlock:
		if cmd.Name != "IDENTIFY_SYSTEM" {
			return Errorf(CodeActiveSQLTransaction, "%s cannot be executed inside a transaction block", cmd.Name)
		}
	}
	ctx, done := c.statementContext()
	defer done()
	text := func(name string) Column { return Column{Name: name, TypeOID: 25, TypeSize: -1, TypeMod: -1} }
	switch cmd.Name {
	case "IDENTIFY_SYSTEM":
		id, err := r.IdentifySystem(ctx)
		if err != nil {
			return err
		}
		c.send(rowDescription([]Column{text("systemid"), {Name: "timeline", TypeOID: 23, TypeSize: 4, TypeMod: -1}, text("xlogpos"), text("dbname")}, nil))
		c.sendTextRow([]byte(id.SystemID), []byte(strconv.Itoa(int(id.Timeline))), []byte(FormatLSN(id.XLogPos)), []byte(id.DBName))
		c.sendComplete("IDENTIFY_SYSTEM")
	case "CREATE_REPLICATION_SLOT":
		sl, err := r.CreateReplicationSlot(ctx, cmd)
		if err != nil {
			return err
		}
		c.send(rowDescription([]Column{text("slot_name"), text("consistent_point"), text("snapshot_name"), text("output_plugin")}, nil))
		c.sendTextRow([]byte(sl.Name), []byte(FormatLSN(sl.ConsistentPoint)), nil, []byte(sl.Plugin))
		c.sendComplete("CREATE_REPLICATION_SLOT")
	case "DROP_REPLICATION_SLOT":
		if err := r.DropReplicationSlot(ctx, cmd); err != nil {
			return err
		}
		c.sendComplete("DROP_REPLICATION_SLOT")
	case "START_REPLICATION":
		st, err := r.StartReplication(ctx, cmd)
		if err != nil {
			return err
		}
		done() // streaming is not a statement: no statement_timeout
		defer st.Close()
		return c.streamReplication(st)
	}
	return nil
}

// sendTextRow sends one DataRow of text values (nil = NULL).
func (c *conn) sendTextRow(vals ...[]byte) {
	c.send(&pgproto3.DataRow{Values: vals})
}

// clientMessage is what the streaming reader hands the sender.
type clientMessage struct {
	kind byte   // 'd' CopyData, 'c' CopyDone, 'x' Terminate, 0 error
	data []byte // CopyData payload (a copy)
	err  error
}

// streamReplication runs CopyBoth until the client ends it (CopyDone:
// CopyDone back, CommandComplete, and the connection goes on) or the
// connection ends. An error while streaming ends the connection: the
// reader of the client's messages is still running.
func (c *conn) streamReplication(st ReplicationStream) error {
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	c.send(&pgproto3.CopyBothResponse{OverallFormat: 0})
	if err := c.flush(); err != nil {
		return errClientGone
	}
	in := make(chan clientMessage, 8)
	go func() {
		for {
			msg, err := c.be.Receive()
			var m clientMessage
			switch x := msg.(type) {
			case *pgproto3.CopyData:
				m = clientMessage{kind: 'd', data: append([]byte(nil), x.Data...)}
			case *pgproto3.CopyDone:
				m = clientMessage{kind: 'c'}
			case *pgproto3.Terminate:
				m = clientMessage{kind: 'x'}
			case nil:
				m = clientMessage{err: err}
			default:
				m = clientMessage{err: &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "unexpected message type during COPY"}}
			}
			select {
			case in <- m:
			case <-ctx.Done():
				return
			}
			if m.kind != 'd' {
				return
			}
		}
	}()
	fatal := func(err error) error {
		if errors.Is(err, errClientGone) {
			return err
		}
		e := *toPGError(ctx, err)
		e.Severity = SeverityFatal
		return &e
	}
	var walEnd uint64
	lastSent := time.Now()
	tick := time.NewTicker(replicationPoll)
	defer tick.Stop()
	for {
		// send every transaction that is ready, looking at the client
		// between them
		for {
			msgs, end, err := st.Next(ctx)
			if err != nil {
				return fatal(err)
			}
			walEnd = max(walEnd, end)
			if msgs == nil {
				break
			}
			for _, m := range msgs {
				c.send(&pgproto3.CopyData{Data: xlogData(m)})
			}
			if err := c.flush(); err != nil {
				return errClientGone
			}
			lastSent = time.Now()
			if len(in) > 0 {
				break
			}
		}
		if time.Since(lastSent) >= replicationKeepalive {
			c.send(&pgproto3.CopyData{Data: keepalive(walEnd, true)})
			if err := c.flush(); err != nil {
				return errClientGone
			}
			lastSent = time.Now()
		}
		select {
		case m := <-in:
			switch m.kind {
			case 'd':
				if err := c.clientReplicationMessage(ctx, st, m.data, walEnd); err != nil {
					return fatal(err)
				}
			case 'c':
				c.send(&pgproto3.CopyDone{})
				c.sendComplete("COPY 0")
				c.sendComplete("START_REPLICATION")
				return nil
			case 'x':
				return errClientGone
			default:
				if m.err != nil {
					var pe *Error
					if errors.As(m.err, &pe) {
						return pe
					}
				}
				return errClientGone
			}
		case <-tick.C:
			c.mu.Lock()
			terminated := c.terminated
			c.mu.Unlock()
			if terminated || c.srv.closing.Load() {
				return &Error{Severity: SeverityFatal, Code: CodeAdminShutdown, Message: "terminating connection due to administrator command"}
			}
		case <-ctx.Done():
			return &Error{Severity: SeverityFatal, Code: CodeAdminShutdown, Message: "terminating connection due to administrator command"}
		}
	}
}

// clientReplicationMessage handles one CopyData from the client: a
// standby status update ('r') confirms its flush position; hot standby
// feedback ('h') means nothing to a logical stream.
func (c *conn) clientReplicationMessage(ctx context.Context, st ReplicationStream, b []byte, walEnd uint64) error {
	if len(b) == 0 {
		return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "invalid standby message"}
	}
	switch b[0] {
	case 'r':
		if len(b) < 1+8*4+1 {
			return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "invalid standby status update"}
		}
		flush := binary.BigEndian.Uint64(b[9:])
		if flush != 0 {
			if err := st.Confirm(ctx, flush); err != nil {
				return err
			}
		}
		if b[33] != 0 { // the client asks for a reply
			c.send(&pgproto3.CopyData{Data: keepalive(walEnd, false)})
			return c.flush()
		}
	case 'h':
	default:
		return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "unexpected message type \"" + string(b[0]) + "\""}
	}
	return nil
}

// pgNow is the current time as PostgreSQL's TimestampTz.
func pgNow() int64 {
	return time.Since(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Microseconds()
}

// xlogData is 'w': data start, WAL end (both the message's position,
// as PostgreSQL's logical walsender sends them), send time, payload.
func xlogData(m WALMessage) []byte {
	b := make([]byte, 0, 25+len(m.Data))
	b = append(b, 'w')
	b = binary.BigEndian.AppendUint64(b, m.Start)
	b = binary.BigEndian.AppendUint64(b, m.Start)
	b = binary.BigEndian.AppendUint64(b, uint64(pgNow()))
	return append(b, m.Data...)
}

// keepalive is 'k': the stream's end, send time, reply requested.
func keepalive(walEnd uint64, reply bool) []byte {
	b := make([]byte, 0, 18)
	b = append(b, 'k')
	b = binary.BigEndian.AppendUint64(b, walEnd)
	b = binary.BigEndian.AppendUint64(b, uint64(pgNow()))
	if reply {
		return append(b, 1)
	}
	return append(b, 0)
}
