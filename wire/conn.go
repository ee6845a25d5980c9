package wire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/sirupsen/logrus"

	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
)

// conn is one client connection. Everything but the fields under mu is
// owned by the connection goroutine.
type conn struct {
	srv *Server
	nc  net.Conn // plain or TLS
	raw net.Conn // the accepted connection (under TLS): watched for disconnects
	// done is closed when the connection has ended (pg_terminate_backend
	// waits on it).
	done chan struct{}
	bw   *bufio.Writer
	be   *pgproto3.Backend
	// completeMsg and tagBuf carry every CommandComplete (sendComplete)
	completeMsg pgproto3.CommandComplete
	tagBuf      []byte
	mr          *messageReader // what be reads (sees the messages after the current one)
	log         logrus.FieldLogger

	pid       uint32
	secretKey []byte
	minor     uint16
	tls       bool
	user      string
	database  string
	params    map[string]string // startup parameters
	// authMethod is how the client proved its identity at startup; a
	// later switch to another database (branch) must not need more.
	authMethod AuthMethod

	ctx       context.Context // ends when the connection is force-closed
	cancelCtx context.CancelCauseFunc
	settings  *Settings
	sess      Session
	types     *pgtype.Map
	werr      error // first write error; ends the connection

	row     pgproto3.DataRow // scratch DataRow reused for every row sent
	rowBuf  []byte
	rowEnds []int

	tx       txState
	txOpts   TxOptions // options of the current explicit block (for AND CHAIN)
	stmts    map[string]*prepared
	portals  map[string]*portal
	skipSync bool // error in extended protocol: discard until Sync
	inCycle  bool // extended-protocol messages since the last Sync
	// multiStatement is set while a Query with several statements runs
	// (PostgreSQL treats that as an implicit transaction block).
	multiStatement bool
	reported       []string     // values last sent as ParameterStatus (reportedSettings order)
	reportedGen    uint64       // settings.gen when reported was last compared
	settingsMemo   settingsMemo // the settings read around every statement (settings_memo.go)
	scratch        []string

	mu         sync.Mutex
	idle       bool // blocked reading at a statement boundary
	copying    bool // inside COPY FROM STDIN (a cancel may interrupt the read)
	stmtCancel context.CancelCauseFunc
	watch      stmtWatch // the running statement's client checks and statement_timeout (clientcheck.go)
	closed     bool
	// ready: startup is over (its own deadline no longer applies).
	// woken: a read deadline was moved to now to interrupt a blocked read
	// (cancel, shutdown); the message timeout must not move it back.
	ready, woken bool
	// terminated: pg_terminate_backend ended this session (FATAL 57P01
	// at the next boundary, or at once for a running statement).
	terminated bool
	// replication: a replication=database connection (replication.go)
	replication bool
	// act is this connection's pg_stat_activity record (activity.go).
	act activityState
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &conn{srv: s, nc: nc, raw: nc, done: make(chan struct{}), ctx: ctx, cancelCtx: cancel, types: pgtype.NewMap(),
		log:   s.cfg.Logger.WithField("remote", nc.RemoteAddr().String()),
		stmts: map[string]*prepared{}, portals: map[string]*portal{}, act: activityState{backendStart: time.Now()}}
	c.watch.raw, c.watch.every = nc, s.cfg.ClientCheckInterval
	return c
}

// serve runs the connection to its end. No panic escapes it.
func (c *conn) serve(ctx context.Context) {
	observe.ConnectionOpened()
	defer observe.ConnectionClosed()
	defer func() {
		if r := recover(); r != nil {
			c.log.WithField("panic", r).Errorf("wire: connection panic\n%s", debug.Stack())
			c.sendError(&Error{Severity: SeverityFatal, Code: CodeInternalError, Message: "internal error"})
			c.flush()
		}
		c.close()
	}()
	stop := context.AfterFunc(ctx, func() { c.forceClose() })
	defer stop()

	c.nc.SetDeadline(time.Now().Add(c.srv.cfg.StartupTimeout))
	err := c.startup()
	c.noteStarted(err)
	if err != nil {
		if errors.Is(err, errClientGone) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return
		}
		var pe *Error
		if !errors.As(err, &pe) {
			c.log.WithError(err).Debug("wire: startup failed")
			if se := (*StartupError)(nil); errors.As(err, &se) {
				pe = &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "invalid startup packet layout"}
			} else {
				return
			}
		}
		pe.Severity = SeverityFatal
		if IsAuthFailure(pe) {
			c.log.WithField("user", c.user).Warnf("wire: authentication failed: %s", pe.Message)
			if d := c.srv.limiter.fail(c.nc.RemoteAddr()); d > 0 {
				time.Sleep(d)
			}
		}
		c.sendError(pe)
		c.flush()
		return
	}
	c.nc.SetDeadline(time.Time{})
	c.mu.Lock()
	c.ready = true
	c.mu.Unlock()
	c.loop()
}

func (c *conn) close() {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return
	}
	c.noteDisconnected()
	if c.sess != nil {
		func() {
			defer func() { recover() }()
			c.closePortals()
			if c.tx != txIdle {
				c.sess.Rollback(context.Background())
			}
			c.sess.Close()
		}()
	}
	c.cancelCtx(ErrShutdown)
	c.watch.close()
	c.nc.Close()
	if c.mr != nil {
		c.mr.drop()
	}
	c.srv.unregister(c)
	close(c.done)
}

// forceClose cancels the running statement and closes the socket (from
// another goroutine).
func (c *conn) forceClose() {
	c.cancelStatement(ErrShutdown)
	c.cancelCtx(ErrShutdown)
	c.mu.Lock()
	nc := c.nc
	c.mu.Unlock()
	nc.Close()
}

// interruptIdle makes a connection waiting for its next statement wake up
// (used by Shutdown); a busy connection notices at its next boundary.
func (c *conn) interruptIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idle {
		c.woken = true
		c.nc.SetReadDeadline(time.Now())
	}
}

// armMessageDeadline bounds the next wait for more bytes of a message
// that has begun (see msgreader.go); false when a wake-up is pending or
// startup (with its own deadline) is still running.
func (c *conn) armMessageDeadline() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready || c.woken {
		return false
	}
	c.nc.SetReadDeadline(time.Now().Add(c.srv.cfg.MessageTimeout))
	return true
}

// disarmMessageDeadline lifts that bound once the message is complete
// (the next wait sets its own: receive's idle timeouts, or none in COPY).
func (c *conn) disarmMessageDeadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.woken {
		c.nc.SetReadDeadline(time.Time{})
	}
}

func (c *conn) cancelStatement(cause error) {
	c.mu.Lock()
	f := c.stmtCancel
	c.mu.Unlock()
	if f != nil {
		f(cause)
	}
}

// statementContext returns the context of one statement: cancelled by
// CancelRequest, statement_timeout or shutdown.
func (c *conn) statementContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(c.ctx)
	timeout := c.memo().statementTimeout
	c.mu.Lock()
	c.stmtCancel = cancel
	terminated := c.terminated
	check := c.ready
	c.mu.Unlock()
	c.watch.start(cancel, timeout, check)
	if terminated {
		cancel(ErrShutdown)
	}
	return ctx, func() {
		c.watch.stop()
		c.mu.Lock()
		c.stmtCancel = nil
		c.mu.Unlock()
		cancel(nil)
	}
}

// send queues a message; bytes reach the socket when the buffer passes the
// flush threshold or at flush().
func (c *conn) send(msg pgproto3.BackendMessage) {
	if c.werr != nil {
		return
	}
	c.be.Send(msg)
	if err := c.be.Flush(); err != nil {
		c.werr = err
	}
}

// sendComplete queues CommandComplete with tag, through a message and a
// buffer the connection keeps (send encodes at once).
func (c *conn) sendComplete(tag string) {
	c.tagBuf = append(c.tagBuf[:0], tag...)
	c.completeMsg.CommandTag = c.tagBuf
	c.send(&c.completeMsg)
}

func (c *conn) flush() error {
	if c.werr != nil {
		return c.werr
	}
	if c.bw == nil {
		return nil // startup: messages were written directly
	}
	if c.be != nil {
		if err := c.be.Flush(); err != nil {
			c.werr = err
			return err
		}
	}
	if err := c.bw.Flush(); err != nil {
		c.werr = err
	}
	return c.werr
}

func (c *conn) sendError(e *Error) {
	if c.be == nil {
		// Before the message codec exists (startup): encode directly.
		buf, err := errorResponse(e).Encode(nil)
		if err == nil {
			c.nc.Write(buf)
		}
		return
	}
	c.send(errorResponse(e))
}

// noticeRank orders severities for client_min_messages.
var noticeRank = map[string]int{"debug5": 1, "debug4": 2, "debug3": 3, "debug2": 4, "debug1": 5, "debug": 5,
	"log": 6, "info": 6, "notice": 7, "warning": 8, "error": 9}

func (c *conn) notice(e *Error) {
	n := *e
	if n.Severity == "" {
		n.Severity = SeverityNotice
	}
	if c.settings != nil {
		limit, _ := c.settings.Get("client_min_messages")
		// INFO reaches the client whatever client_min_messages says
		// (PostgreSQL's rule; RAISE INFO sends it)
		if sev := strings.ToLower(n.Severity); sev != "info" && noticeRank[sev] < noticeRank[limit] {
			return
		}
	}
	if n.Code == "" {
		n.Code = CodeSuccessfulCompletion
	}
	c.send(noticeResponse(&n))
}

// noticeNow sends a notice and flushes it with what is queued before it.
func (c *conn) noticeNow(e *Error) {
	c.notice(e)
	_ = c.flush()
}

// readError maps a receive error to what ends the connection.
func (c *conn) readError(err error) error {
	var big *pgproto3.ExceededMaxBodyLenErr
	switch {
	case errors.As(err, &big):
		return &Error{Severity: SeverityFatal, Code: CodeProgramLimitExceeded,
			Message: fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", big.ActualBodyLen, big.MaxExpectedBodyLen)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return errClientGone
	case errors.Is(err, os.ErrDeadlineExceeded):
		return err
	case errors.Is(err, errIncompleteMessage):
		return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation,
			Message: fmt.Sprintf("terminating connection: incomplete message, no data for %s", c.srv.cfg.MessageTimeout)}
	}
	var de *droppedError
	if errors.As(err, &de) {
		return &messageError{msgType: messageTypeName(de.msgType), err: de.pgError(c.srv.cfg.MaxMessageSize, c.srv.cfg.MaxBufferedBytes)}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return errClientGone
	}
	text := err.Error()
	if t, ok := strings.CutPrefix(text, "unknown message type: "); ok && len(t) > 0 {
		return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: fmt.Sprintf("invalid frontend message type %d", t[0])}
	}
	// pgproto3 reports a malformed body of a completely read message as
	// "<Type> body ...": the stream is still in step, so (as PostgreSQL)
	// it is an ERROR for that message, not the end of the connection.
	if name, _, ok := strings.Cut(text, " body "); ok && !strings.Contains(name, " ") {
		return &messageError{msgType: name}
	}
	return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "invalid frontend message: " + text}
}

// messageError is a well-framed message whose content is malformed, or
// (err set) that was read through and dropped for another reason.
type messageError struct {
	msgType string
	err     *Error
}

func (e *messageError) Error() string { return "wire: malformed " + e.msgType + " message" }

// pgError is what the client receives for it.
func (e *messageError) pgError() *Error {
	if e.err != nil {
		return e.err
	}
	if e.msgType == "Query" {
		return Errorf(CodeProtocolViolation, "invalid string in message")
	}
	return Errorf(CodeProtocolViolation, "invalid message format")
}

// startup negotiates encryption and protocol, authenticates and opens the
// session.
func (c *conn) startup() error {
	var pkt *startupPacket
	var sniffed io.Reader // replays the byte read to detect direct TLS
	if c.srv.tlsConf != nil {
		// Direct TLS (PostgreSQL 17 sslnegotiation=direct): the client
		// starts with a TLS ClientHello instead of an SSLRequest.
		var b [1]byte
		if _, err := io.ReadFull(c.nc, b[:]); err != nil {
			return errClientGone
		}
		if b[0] == 0x16 {
			if err := c.startTLS(&prefixConn{Conn: c.nc, prefix: b[:]}, true); err != nil {
				return err
			}
		} else {
			sniffed = io.MultiReader(bytes.NewReader(b[:]), c.nc)
		}
	}
	sslDone, gssDone := c.tls, false
	for {
		var r io.Reader = c.nc
		if sniffed != nil {
			r, sniffed = sniffed, nil
		}
		p, err := readStartupPacket(r)
		if err != nil {
			return err
		}
		// A second encryption request is not a negotiation any more: as in
		// PostgreSQL, its code is read as a protocol version (0A000).
		if (p.code == codeSSLRequest && sslDone) || (p.code == codeGSSEncRequest && gssDone) {
			return &Error{Severity: SeverityFatal, Code: CodeFeatureNotSupported,
				Message: fmt.Sprintf("unsupported frontend protocol %d.%d: server supports 3.0 to 3.%d", p.code>>16, p.code&0xffff, protocolLatestMinor)}
		}
		switch p.code {
		case codeSSLRequest:
			sslDone = true
			if c.srv.tlsConf == nil {
				if _, err := c.nc.Write([]byte{'N'}); err != nil {
					return errClientGone
				}
				continue
			}
			if _, err := c.nc.Write([]byte{'S'}); err != nil {
				return errClientGone
			}
			if err := c.startTLS(c.nc, false); err != nil {
				return err
			}
			continue
		case codeGSSEncRequest:
			gssDone = true
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return errClientGone
			}
			continue
		case codeCancelRequest:
			c.srv.cancel(p.cancelPID, p.cancelKey)
			return errClientGone
		}
		pkt = p
		break
	}
	c.bw = bufio.NewWriterSize(c.nc, c.srv.cfg.FlushThreshold)
	c.mr = newMessageReader(c.nc)
	c.mr.maxBody, c.mr.budget = c.srv.cfg.MaxMessageSize, c.srv.buffered
	c.mr.arm, c.mr.disarm = c.armMessageDeadline, c.disarmMessageDeadline
	c.be = pgproto3.NewBackend(c.mr, c.bw)
	c.be.SetMaxBodyLen(c.srv.cfg.MaxMessageSize)

	if pkt.major != protocolMajor {
		return &Error{Severity: SeverityFatal, Code: CodeFeatureNotSupported,
			Message: fmt.Sprintf("unsupported frontend protocol %d.%d: server supports 3.0 to 3.%d", pkt.major, pkt.minor, protocolLatestMinor)}
	}
	c.minor = pkt.minor
	var unknownOpts []string
	for _, name := range pkt.order {
		if len(name) > 5 && name[:5] == "_pq_." {
			unknownOpts = append(unknownOpts, name)
		}
	}
	// 3.1 was never defined; answer as 3.0 does.
	if c.minor > protocolLatestMinor || c.minor == 1 || len(unknownOpts) > 0 {
		newest := uint32(min(c.minor, protocolLatestMinor))
		if newest == 1 {
			newest = 0
		}
		c.minor = uint16(newest)
		sort.Strings(unknownOpts)
		// PostgreSQL sends the full version number here (libpq compares it
		// with PG_PROTOCOL(3, n)), whatever the field's name says.
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: protocolMajor<<16 | newest, UnrecognizedOptions: unknownOpts})
	}
	c.params = pkt.params
	c.user = pkt.params["user"]
	if c.user == "" {
		return &Error{Severity: SeverityFatal, Code: CodeInvalidAuthorization, Message: "no PostgreSQL user name specified in startup packet"}
	}
	c.database = pkt.params["database"]
	if c.database == "" {
		c.database = c.user
	}
	c.log = c.log.WithFields(logrus.Fields{"user": c.user, "database": c.database})
	if c.srv.cfg.RequireTLS && !c.tls {
		return &Error{Severity: SeverityFatal, Code: CodeInvalidAuthorization, Message: "connection requires SSL encryption"}
	}
	repl, rerr := replicationMode(pkt.params)
	if rerr != nil {
		return rerr
	}
	c.replication = repl
	if c.srv.closing.Load() {
		return &Error{Severity: SeverityFatal, Code: pgerr.CannotConnectNow, Message: "the database system is shutting down"}
	}
	if !c.srv.register(c) {
		return &Error{Severity: SeverityFatal, Code: CodeTooManyConnections, Message: "sorry, too many clients already"}
	}
	method := c.srv.methodFor(c.nc.RemoteAddr(), c.tls, c.user, c.database)
	if err := c.authenticate(method); err != nil {
		return err
	}
	c.authMethod = method
	if method != AuthTrust {
		c.srv.limiter.succeed(c.nc.RemoteAddr())
	}
	// As in PostgreSQL, authentication is confirmed before the startup
	// options and the database are checked (those fail as FATAL after it).
	c.send(&pgproto3.AuthenticationOk{})
	c.secretKey = make([]byte, 4)
	if c.minor >= 2 {
		c.secretKey = make([]byte, 32)
	}
	if _, err := rand.Read(c.secretKey); err != nil {
		return err
	}
	if err := c.initSettings(pkt); err != nil {
		return err
	}
	info := SessionInfo{User: c.user, Database: c.database, Startup: c.params, RemoteAddr: c.nc.RemoteAddr(),
		ProcessID: c.pid, TLS: c.tls, Settings: c.settings, Notice: c.notice, NoticeNow: c.noticeNow, Admit: c.admit,
		Signal: func(pid int32, terminate bool, wait time.Duration) (bool, error) {
			return c.srv.signalBackend(c, pid, terminate, wait)
		},
		Activity: c.srv.activity}
	ctx, done := c.statementContext()
	sess, err := c.newSession(ctx, info)
	done()
	if err != nil {
		e := *toPGError(context.Background(), err) // a copy: the session's value stays as is
		e.Severity = SeverityFatal
		return &e
	}
	if _, ok := sess.(Replicator); c.replication && !ok {
		sess.Close()
		return &Error{Severity: SeverityFatal, Code: CodeFeatureNotSupported, Message: "replication connections are not supported"}
	}
	c.sess = sess
	c.reported = c.settings.reported(nil)
	c.reportedGen = c.settings.gen
	for i, r := range reportedSettings {
		c.send(&pgproto3.ParameterStatus{Name: r[1], Value: c.reported[i]})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secretKey})
	c.readyForQuery()
	return c.werr
}

// startTLS runs the server handshake over raw. A direct TLS connection
// must negotiate the "postgresql" ALPN protocol, as PostgreSQL requires.
func (c *conn) startTLS(raw net.Conn, direct bool) error {
	tc := tls.Server(raw, c.srv.tlsConf)
	if err := tc.Handshake(); err != nil {
		c.log.WithError(err).Debug("wire: TLS handshake failed")
		return errClientGone
	}
	if direct && tc.ConnectionState().NegotiatedProtocol != alpnProtocol {
		c.log.Debug("wire: direct TLS without the postgresql ALPN protocol")
		tc.Close()
		return errClientGone
	}
	c.mu.Lock()
	c.nc, c.tls = tc, true
	c.mu.Unlock()
	return nil
}

// prefixConn replays bytes already read before the rest of the stream.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

func (c *conn) newSession(ctx context.Context, info SessionInfo) (s Session, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.WithField("panic", r).Errorf("wire: NewSession panic\n%s", debug.Stack())
			err = Errorf(CodeInternalError, "internal error")
		}
	}()
	return c.srv.cfg.Backend.NewSession(ctx, info)
}

// initSettings applies startup parameters and options as session defaults.
func (c *conn) initSettings(pkt *startupPacket) error {
	s := NewSettings()
	c.settings = s
	s.setDefault("session_authorization", c.user, "")
	s.setDefault("graph.branch", c.database, "")
	if d := c.srv.cfg.StatementTimeout; d > 0 {
		s.setServerDefault("statement_timeout", formatDurationMS(d.Milliseconds()))
	}
	if d := c.srv.cfg.IdleInTransactionTimeout; d > 0 {
		s.setServerDefault("idle_in_transaction_session_timeout", formatDurationMS(d.Milliseconds()))
	}
	if d := c.srv.cfg.IdleSessionTimeout; d > 0 {
		s.setServerDefault("idle_session_timeout", formatDurationMS(d.Milliseconds()))
	}
	if v, err := normMinDuration(c.srv.cfg.LogMinDurationStatement); c.srv.cfg.LogMinDurationStatement != "" && err == nil {
		s.setServerDefault("log_min_duration_statement", v)
	}
	for name, on := range map[string]bool{"log_connections": c.srv.cfg.LogConnections, "log_disconnections": c.srv.cfg.LogDisconnections} {
		if on {
			s.setServerDefault(name, "on")
		}
	}
	if w := c.srv.cfg.WorkMem; w != "" {
		s.setServerDefault("work_mem", w)
	}
	apply := func(name, value string) error {
		key, v, perr := resolveSetting(name, value)
		if perr != nil {
			if perr.Code == CodeUndefinedObject || perr.Code == CodeCantChangeRuntimeParam {
				return nil // remembered in SessionInfo.Startup only
			}
			if strings.EqualFold(name, "client_encoding") {
				return nil // non-UTF8 client encodings: stay UTF8 (reported)
			}
			perr.Severity = SeverityFatal
			return perr
		}
		s.setDefault(key, v, name)
		return nil
	}
	for _, name := range pkt.order {
		switch name {
		case "user", "database", "options", "replication":
			continue
		}
		if len(name) > 5 && name[:5] == "_pq_." {
			continue
		}
		if err := apply(name, pkt.params[name]); err != nil {
			return err
		}
	}
	if opts, ok := pkt.params["options"]; ok {
		kvs, err := parseOptions(opts)
		if err != nil {
			return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: err.Error()}
		}
		// Explicit -c settings are checked strictly, as PostgreSQL does.
		for _, kv := range kvs {
			key, v, perr := resolveSetting(kv[0], kv[1])
			if perr != nil {
				perr.Severity = SeverityFatal
				return perr
			}
			s.setDefault(key, v, kv[0])
		}
	}
	return nil
}

// readyForQuery ends a query cycle: report setting changes, then Z, then
// write everything.
func (c *conn) readyForQuery() {
	c.reportChanges()
	// pg_stat_activity shows the idle state before the client learns the
	// statement is over (as PostgreSQL), so a client that reads it from
	// another session right after sees this one idle
	c.mu.Lock()
	c.noteIdle()
	c.mu.Unlock()
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.tx.status()})
	c.flush()
}

// reportChanges sends ParameterStatus for every reported setting whose
// value changed since last sent.
func (c *conn) reportChanges() {
	if c.settings == nil || c.reported == nil || c.settings.gen == c.reportedGen {
		return
	}
	c.reportedGen = c.settings.gen
	c.scratch = c.settings.reported(c.scratch)
	for i, v := range c.scratch {
		if c.reported[i] != v {
			c.send(&pgproto3.ParameterStatus{Name: reportedSettings[i][1], Value: v})
			c.reported[i] = v
		}
	}
}

// loop reads and dispatches messages until the client leaves or a fatal
// error occurs.
func (c *conn) loop() {
	for {
		msg, err := c.receive()
		if err != nil {
			// (declared here: errors.As's target escapes, and a
			// declaration outside this branch cost an allocation per
			// message)
			var me *messageError
			if errors.As(err, &me) {
				c.failStatement(me.pgError())
				switch me.msgType {
				case "Query", "FunctionCall":
					c.readyForQuery()
				default:
					c.inCycle, c.skipSync = true, true
				}
				continue
			}
			c.endWith(err)
			return
		}
		if _, ok := msg.(*pgproto3.Terminate); ok {
			return
		}
		if err := c.dispatch(msg); err != nil {
			c.endWith(err)
			return
		}
		if c.werr != nil {
			return
		}
	}
}

// endWith sends a fatal error (if it is one) and stops.
func (c *conn) endWith(err error) {
	var pe *Error
	if errors.As(err, &pe) {
		pe.Severity = SeverityFatal
		c.sendError(pe)
		c.flush()
	}
}

// receive reads the next message. At a statement boundary (nothing
// pending) it applies idle_in_transaction_session_timeout and notices
// shutdown.
func (c *conn) receive() (pgproto3.FrontendMessage, error) {
	boundary := !c.inCycle
	c.mu.Lock()
	if (c.srv.closing.Load() && boundary) || c.terminated {
		c.mu.Unlock()
		return nil, errTerminated()
	}
	c.idle = boundary
	idleTimeout, inTx := time.Duration(0), c.tx == txBlock || c.tx == txFailed
	if boundary && inTx {
		idleTimeout = c.memo().idleInTxTimeout
	} else if boundary {
		idleTimeout = c.memo().idleTimeout
	}
	if idleTimeout > 0 {
		c.nc.SetReadDeadline(time.Now().Add(idleTimeout))
	} else {
		c.nc.SetReadDeadline(time.Time{})
	}
	c.woken = false
	c.mu.Unlock()
	msg, err := c.be.Receive()
	c.mu.Lock()
	c.idle = false
	c.mu.Unlock()
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			c.mu.Lock()
			terminated := c.terminated
			c.mu.Unlock()
			if c.srv.closing.Load() || terminated {
				return nil, &Error{Severity: SeverityFatal, Code: CodeAdminShutdown, Message: "terminating connection due to administrator command"}
			}
			if idleTimeout > 0 && inTx {
				return nil, &Error{Severity: SeverityFatal, Code: CodeIdleInTransactionTimeout, Message: "terminating connection due to idle-in-transaction timeout"}
			}
			if idleTimeout > 0 {
				return nil, &Error{Severity: SeverityFatal, Code: CodeIdleSessionTimeout, Message: "terminating connection due to idle-session timeout"}
			}
		}
		return nil, c.readError(err)
	}
	return msg, nil
}

// dispatch handles one message. A panic becomes XX000 for the current
// statement and the connection goes on.
func (c *conn) dispatch(msg pgproto3.FrontendMessage) (fatal error) {
	extended := false
	defer func() {
		if r := recover(); r != nil {
			c.log.WithField("panic", r).Errorf("wire: statement panic\n%s", debug.Stack())
			c.failStatement(&Error{Severity: SeverityError, Code: CodeInternalError, Message: "internal error"})
			if extended {
				c.skipSync = true
			} else {
				c.readyForQuery()
			}
			fatal = nil
		}
	}()
	if _, isSync := msg.(*pgproto3.Sync); c.skipSync && !isSync {
		return nil // after an extended-protocol error everything up to Sync is discarded, Query included
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.noteQuery(m.String)
		if c.replication && isReplicationCommand(m.String) {
			return c.replicationQuery(m.String)
		}
		return c.simpleQuery(m.String)
	case *pgproto3.Sync:
		c.sync()
		return nil
	case *pgproto3.Flush:
		c.flush()
		return nil
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		return nil // leftovers of a failed COPY: dropped, as PostgreSQL does
	case *pgproto3.FunctionCall:
		c.failStatement(Errorf(CodeFeatureNotSupported, "fastpath function calls are not supported"))
		c.readyForQuery()
		return nil
	}
	extended = true
	c.inCycle = true
	if c.replication {
		// as in PostgreSQL: a replication connection speaks the simple
		// query protocol only
		c.failStatement(Errorf(CodeProtocolViolation, "extended query protocol not supported in a replication connection"))
		c.skipSync = true
		c.flush()
		return nil
	}
	var err error
	switch m := msg.(type) {
	case *pgproto3.Parse:
		err = c.handleParse(m)
	case *pgproto3.Bind:
		err = c.handleBind(m)
	case *pgproto3.Describe:
		err = c.handleDescribe(m)
	case *pgproto3.Execute:
		err = c.handleExecute(m)
	case *pgproto3.Close:
		err = c.handleClose(m)
	default:
		return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: fmt.Sprintf("unexpected message type %T", msg)}
	}
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && pe.Fatal() {
			return pe
		}
		c.failStatement(err)
		c.skipSync = true
		// PostgreSQL flushes an error at once (elog.c's
		// send_message_to_frontend): a client that sent no Sync or Flush
		// yet — a pipeline waiting on its first result — learns of it
		c.flush()
	}
	return nil
}

// failStatement reports a statement error and moves the transaction state.
func (c *conn) failStatement(err error) {
	e := toPGError(context.Background(), err)
	switch {
	case e.Cause == nil:
	case e.Code == CodeInternalError:
		c.log.WithError(e.Cause).Warn("wire: statement failed with an internal error")
	case e.Code == CodeDiskFull || e.Code == CodeIOError:
		// the client's message names only the operation; the log gets the
		// whole chain (object keys included)
		c.log.WithError(errorChain(e.Cause)).Warn("wire: statement failed with a storage error")
	}
	c.sendError(e)
	c.txFailed()
}
