package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/failpoint"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/planner"
	"github.com/pggraph/pggraph/wire"
)

var serveCmd = &command{
	name:     "serve",
	synopsis: "pgproxy serve --data DIR|s3://BUCKET/PREFIX [--listen HOST:PORT] [--auth METHOD] [--users FILE] [--tls-cert F --tls-key F | --tls-self-signed]",
	about:    "serve the graph root in DIR over the PostgreSQL wire protocol (initializes DIR if it is missing or empty)",
}

// serveConfig is everything serve reads from flags and environment.
type serveConfig struct {
	data, listen, users, hba, tlsCert, tlsKey string
	auth                                      *choiceValue
	tlsSelfSigned, requireTLS                 bool
	maxConns, maxMessage                      int
	autoOptimize                              int
	statementTimeout, idleInTxTimeout         time.Duration
	idleSessionTimeout, messageTimeout        time.Duration
	maxBuffered, queryMemory, memoryLimit     int64
	serverMemory                              int64
	workMem, tempDir, debugListen             string
	metricsListen, logMinDuration             string
	httpListen                                string
	logConnections, logDisconnections         bool
	shutdownGrace                             time.Duration
	cpuProfile                                string
	log                                       *logFlags
	s3                                        *s3Flags
}

func serveFlags(fs *flag.FlagSet) *serveConfig {
	c := &serveConfig{}
	fs.StringVar(&c.data, "data", "", "graph root: a directory, or s3://bucket/prefix")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:5433", "address to listen on")
	c.auth = newChoice(fs, "auth", "trust", "client authentication", "trust", "password", "md5", "scram")
	fs.StringVar(&c.users, "users", "", "users file: one `name secret` per line, secrets as SCRAM-SHA-256$… or md5… (required unless --auth trust)")
	fs.StringVar(&c.hba, "hba", "", "pg_hba-style rules file (TYPE DATABASE USER ADDRESS METHOD); first match wins")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate (PEM); enables TLS with --tls-key")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.BoolVar(&c.tlsSelfSigned, "tls-self-signed", false, "enable TLS with a certificate generated at start")
	fs.BoolVar(&c.requireTLS, "require-tls", false, "refuse connections that do not use TLS")
	fs.IntVar(&c.maxConns, "max-connections", 100, "concurrent sessions; more are refused with 53300")
	fs.IntVar(&c.maxMessage, "max-message-size", 64<<20, "largest client message in bytes; larger ones get 54000 and are disconnected")
	fs.DurationVar(&c.statementTimeout, "statement-timeout", 0, "default statement_timeout (0 = none)")
	fs.DurationVar(&c.idleInTxTimeout, "idle-in-transaction-timeout", 0, "default idle_in_transaction_session_timeout (0 = none)")
	fs.DurationVar(&c.idleSessionTimeout, "idle-session-timeout", 0, "default idle_session_timeout (0 = none)")
	fs.DurationVar(&c.messageTimeout, "message-timeout", time.Minute, "longest wait for more bytes of a client message that has begun; a client stalled mid-message is disconnected")
	c.maxBuffered = 512 << 20
	fs.Var(byteSize{&c.maxBuffered}, "max-buffered-bytes", "bytes all connections together may hold in large incoming messages; a message that would pass it fails with 53200")
	c.queryMemory = 3 << 29
	fs.Var(byteSize{&c.queryMemory}, "query-memory", "bytes one query may buffer (sorts, hash tables, aggregates, values it builds) and a transaction may hold in pending rows; past it the statement fails with 53200 (0 = unlimited)")
	fs.Var(byteSize{&c.memoryLimit}, "memory-limit", "soft limit of the process's Go heap in bytes (runtime/debug.SetMemoryLimit; 0 = GOMEMLIMIT if set, else 1.5 × --server-query-memory + 512 MiB)")
	c.serverMemory = 2 << 30
	fs.Var(byteSize{&c.serverMemory}, "server-query-memory", "bytes all running statements together may hold; past three quarters of it sorts, aggregates and hash joins spill to disk, past it the statement that asks fails with 53200 (0 = no server-wide limit)")
	fs.StringVar(&c.workMem, "work-mem", "", "default work_mem (unset: the built-in 64MB): memory one sort, hash aggregate or hash join build may use before spilling to disk (PostgreSQL units: kB, MB, GB; sessions may SET work_mem)")
	fs.StringVar(&c.tempDir, "temp-dir", "", "directory for spill files (deleted as they are created, gone when the statement ends; default: the system's temporary directory)")
	fs.StringVar(&c.debugListen, "debug-listen", "", "address for /debug/pprof/ and /debug/stats (goroutines, heap, statement memory); keep it on loopback (default: off)")
	fs.StringVar(&c.metricsListen, "metrics-listen", "", "address serving Prometheus metrics at /metrics (pggraph_*; docs/operations.md lists them; default: off)")
	fs.StringVar(&c.httpListen, "http-listen", "", "address serving the read-only web console (commit graph, branches, tables, sessions, recovery); logins use the same roles, passwords and hba rules as SQL, over HTTPS when TLS is configured (default: off)")
	fs.BoolVar(&c.logConnections, "log-connections", false, "log each session's start (log_connections)")
	fs.BoolVar(&c.logDisconnections, "log-disconnections", false, "log each session's end with its duration (log_disconnections)")
	fs.StringVar(&c.logMinDuration, "log-min-duration-statement", "", "default log_min_duration_statement: log statements that run at least this long (PostgreSQL units, e.g. 250ms; 0 = all; unset = -1, off; sessions may SET it)")
	fs.IntVar(&c.autoOptimize, "auto-optimize-fragments", 64, "after a commit leaves a table with this many fragments, compact it in the background (0 = never)")
	fs.DurationVar(&c.shutdownGrace, "shutdown-grace", 30*time.Second, "on SIGINT/SIGTERM, how long running statements may finish")
	fs.StringVar(&c.cpuProfile, "cpu-profile", "", "write a CPU profile of the whole run to this file (Go pprof format; written at shutdown)")
	c.log = addLogFlags(fs)
	c.s3 = addS3Flags(fs)
	return c
}

func (c *serveConfig) validate() error {
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return usagef("--tls-cert and --tls-key must be given together")
	}
	if c.tlsCert != "" && c.tlsSelfSigned {
		return usagef("--tls-self-signed conflicts with --tls-cert")
	}
	if c.requireTLS && c.tlsCert == "" && !c.tlsSelfSigned {
		return usagef("--require-tls needs --tls-cert/--tls-key or --tls-self-signed")
	}
	if c.auth.value != "trust" && c.users == "" {
		return usagef("--auth %s needs --users FILE", c.auth.value)
	}
	if c.maxConns < 1 || c.maxMessage < 1024 {
		return usagef("--max-connections must be >= 1 and --max-message-size >= 1024")
	}
	if c.maxBuffered < 1<<20 || c.messageTimeout <= 0 || c.idleSessionTimeout < 0 {
		return usagef("--max-buffered-bytes must be >= 1048576, --message-timeout > 0 and --idle-session-timeout >= 0")
	}
	if c.queryMemory < 0 || c.memoryLimit < 0 || c.serverMemory < 0 {
		return usagef("--query-memory, --server-query-memory and --memory-limit must be >= 0")
	}
	if n, ok := exec.ParseMemorySetting(c.workMem); c.workMem != "" && (!ok || n < 64<<10) {
		return usagef("--work-mem must be a size of at least 64kB (e.g. 4MB)")
	}
	if c.logMinDuration != "" && wire.CheckMinDurationStatement(c.logMinDuration) != nil {
		return usagef("--log-min-duration-statement must be -1 or a duration (e.g. 250ms)")
	}
	if c.autoOptimize < 0 || c.autoOptimize == 1 {
		return usagef("--auto-optimize-fragments must be 0 (never) or >= 2")
	}
	return nil
}

// wireConfig maps the flags onto the protocol server's configuration.
func (c *serveConfig) wireConfig(g *adapters.Graph, backend *planner.Backend, log *logrus.Logger) wire.Config {
	method, _ := wire.ParseAuthMethod(c.auth.value)
	return wire.Config{
		// Sessions connect to an existing branch; the planner reads
		// through the root and writes through the graph's write protocol.
		Backend: branchBackend{root: g.Root, inner: backend},
		// Logins are checked against the root's role catalog; the users
		// file decides only while the root has none.
		Credentials: backend.Credentials,
		Auth:        method,
		UsersFile:   c.users, HBAFile: c.hba,
		TLSCertFile: c.tlsCert, TLSKeyFile: c.tlsKey, TLSSelfSigned: c.tlsSelfSigned, RequireTLS: c.requireTLS,
		MaxConnections: c.maxConns, MaxMessageSize: c.maxMessage,
		MaxBufferedBytes: c.maxBuffered, MessageTimeout: c.messageTimeout,
		StatementTimeout: c.statementTimeout, IdleInTransactionTimeout: c.idleInTxTimeout,
		IdleSessionTimeout: c.idleSessionTimeout,
		WorkMem:            c.workMem,
		LogConnections:     c.logConnections, LogDisconnections: c.logDisconnections,
		LogMinDurationStatement: c.logMinDuration,
		Logger:                  log,
	}
}

func init() {
	serveCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		cfg := serveFlags(fs)
		if err := parseCommand(serveCmd, fs, args, env); err != nil {
			return err
		}
		if err := cfg.validate(); err != nil {
			return err
		}
		log := cfg.log.newLogger(env.stderr)
		observe.SetLogger(cfg.log.newSlog(env.stderr))
		defer observe.SetLogger(nil)
		if cfg.memoryLimit == 0 && os.Getenv("GOMEMLIMIT") == "" && cfg.serverMemory > 0 {
			// Without a limit the collector lets the heap reach twice
			// what is live: statements holding the whole server budget
			// would make the process twice that. Collect harder from
			// the budget plus headroom for sessions, caches and buffers.
			cfg.memoryLimit = cfg.serverMemory + cfg.serverMemory/2 + 512<<20
		}
		if cfg.memoryLimit > 0 {
			// The GC works harder as the heap nears it (the process is not
			// refused memory: the per-query budget is what fails queries).
			prev := debug.SetMemoryLimit(cfg.memoryLimit)
			defer debug.SetMemoryLimit(prev)
		}
		if cfg.cpuProfile != "" {
			stop, err := startCPUProfile(cfg.cpuProfile)
			if err != nil {
				return err
			}
			defer stop()
		}
		root, created, err := openOrInitRoot(ctx, cfg.data, cfg.s3, actor())
		if err != nil {
			return err
		}
		// The write path (coordinator + recovery) over the same store.
		backing, store := root.Store(), root.Store()
		if cfg.metricsListen != "" {
			store = objstore.Observed(backing, observeStorage)
		}
		g, err := adapters.Open(ctx, store, adapters.Options{Actor: actor(), Location: root.Location(),
			// Without compaction every small commit adds a fragment and
			// each later commit's manifest work grows with the count.
			AutoOptimizeFragments: cfg.autoOptimize})
		if err != nil {
			return &dataDirError{root.Location(), err}
		}
		defer g.Close()
		root = g.Root
		stamp := root.Stamp()
		if created {
			log.WithFields(logrus.Fields{"data": root.Location(), "graph_id": stamp.GraphID}).Info("initialized a new graph root")
		}
		// Before the first connection: a read served now must not see a
		// state that resolving an interrupted write changes later.
		if err := recoverBeforeServing(ctx, g, log); err != nil {
			return &dataDirError{root.Location(), err}
		}
		backend := planner.NewBackend(g)
		backend.MemoryLimit = cfg.queryMemory
		exec.SetServerMemoryBudget(cfg.serverMemory)
		defer exec.SetServerMemoryBudget(0)
		exec.SpillDir = cfg.tempDir
		if err := seedRoles(ctx, backend.Access, cfg.users, log); err != nil {
			return err
		}
		srv, err := wire.NewServer(cfg.wireConfig(g, backend, log))
		if err != nil {
			return fmt.Errorf("configuring the protocol server: %w", err)
		}
		if err := failpoint.Inject(failpoint.ServeBeforeListen); err != nil {
			return err
		}
		ln, err := net.Listen("tcp", cfg.listen)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.listen, err)
		}
		log.WithFields(logrus.Fields{"listen": ln.Addr().String(), "data": root.Location(), "graph_id": stamp.GraphID, "auth": cfg.auth.value}).
			Info("pgproxy serving")
		host, port, _ := net.SplitHostPort(ln.Addr().String())
		fmt.Fprintf(env.stdout, "pgproxy is listening on %s; connect with:\n  psql \"host=%s port=%s dbname=main user=$USER\"\n", ln.Addr(), host, port)
		if cfg.metricsListen != "" {
			ml, err := net.Listen("tcp", cfg.metricsListen)
			if err != nil {
				_ = ln.Close()
				return fmt.Errorf("listen on %s: %w", cfg.metricsListen, err)
			}
			defer ml.Close()
			go serveMetrics(ml, metricsRegistry(g, srv, backing, cfg))
			fmt.Fprintf(env.stdout, "pgproxy metrics on http://%s/metrics\n", ml.Addr())
		}
		if cfg.debugListen != "" {
			dl, err := net.Listen("tcp", cfg.debugListen)
			if err != nil {
				_ = ln.Close()
				return fmt.Errorf("listen on %s: %w", cfg.debugListen, err)
			}
			defer dl.Close()
			go serveDebug(dl)
			fmt.Fprintf(env.stdout, "pgproxy debug endpoint on http://%s/debug/stats\n", dl.Addr())
		}

		// Serve runs under its own context: ending it is a hard stop, and a
		// signal should first give running statements the grace period.
		serveCtx, hardStop := context.WithCancel(context.Background())
		defer hardStop()
		served := make(chan error, 1)
		go func() { served <- srv.Serve(serveCtx, ln) }()
		if cfg.httpListen != "" {
			stopConsole, err := startConsole(serveCtx, cfg, srv, env)
			if err != nil {
				hardStop()
				<-served
				return err
			}
			defer stopConsole()
		}
		select {
		case err := <-served:
			return fmt.Errorf("serving stopped unexpectedly: %w", err)
		case <-ctx.Done():
		}
		log.WithField("grace", cfg.shutdownGrace.String()).Info("shutting down: no new connections; running statements may finish")
		sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownGrace)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("shutdown: %w", err)
		}
		if err := <-served; err != nil && !errors.Is(err, wire.ErrServerClosed) {
			return fmt.Errorf("serving: %w", err)
		}
		// Finish this process's own work: background maintenance, sidecar
		// deletes, and any write of ours that failed into recovery, so a
		// clean shutdown leaves nothing pending.
		if err := g.Quiesce(sctx); err != nil {
			log.WithError(err).Warn("shutdown: an interrupted write is left for recovery")
		}
		log.Info("pgproxy stopped")
		return nil
	}
}

// startCPUProfile profiles the process until the returned stop runs (a
// server's hot paths, measured as deployed).
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
