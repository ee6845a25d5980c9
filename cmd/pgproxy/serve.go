package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/sirupsen/logrus"

	"github.com/pggraph/pggraph/internal/failpoint"
)

var serveCmd = &command{
	name:     "serve",
	synopsis: "pgproxy serve --data DIR [--listen HOST:PORT] [--auth METHOD] [--users FILE] [--tls-cert F --tls-key F]",
	about:    "serve the graph root in DIR over the PostgreSQL wire protocol (initializes DIR if it is missing or empty)",
}

// serveConfig is everything serve reads from flags and environment.
type serveConfig struct {
	data, listen, users, tlsCert, tlsKey string
	auth                                 *choiceValue
	tlsSelfSigned                        bool
	log                                  *logFlags
}

func serveFlags(fs *flag.FlagSet) *serveConfig {
	c := &serveConfig{}
	fs.StringVar(&c.data, "data", "", "graph root directory")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:5433", "address to listen on")
	c.auth = newChoice(fs, "auth", "trust", "client authentication", "trust", "password", "md5", "scram")
	fs.StringVar(&c.users, "users", "", "users file with hashed secrets (required unless --auth trust)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate (PEM); enables TLS with --tls-key")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.BoolVar(&c.tlsSelfSigned, "tls-self-signed", false, "enable TLS with a generated self-signed certificate")
	c.log = addLogFlags(fs)
	return c
}

func (c *serveConfig) validate() error {
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return usagef("--tls-cert and --tls-key must be given together")
	}
	if c.tlsCert != "" && c.tlsSelfSigned {
		return usagef("--tls-self-signed conflicts with --tls-cert")
	}
	if c.auth.value != "trust" && c.users == "" {
		return usagef("--auth %s needs --users FILE", c.auth.value)
	}
	return nil
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
		store, stamp, created, err := openOrInitRoot(ctx, cfg.data, actor())
		if err != nil {
			return err
		}
		if created {
			log.WithFields(logrus.Fields{"data": store.Root(), "graph_id": stamp.GraphID}).Info("initialized a new graph root")
		}
		if err := failpoint.Inject(failpoint.ServeBeforeListen); err != nil {
			return err
		}
		ln, err := net.Listen("tcp", cfg.listen)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.listen, err)
		}
		log.WithFields(logrus.Fields{"listen": ln.Addr().String(), "data": store.Root(), "graph_id": stamp.GraphID}).
			Info("pgproxy serving")
		host, port, _ := net.SplitHostPort(ln.Addr().String())
		fmt.Fprintf(env.stdout, "pgproxy is listening on %s; connect with:\n  psql \"host=%s port=%s dbname=main user=$USER\"\n", ln.Addr(), host, port)
		return refuseSQL(ctx, ln, log)
	}
}

// refuseSQL accepts PostgreSQL connections and answers each startup with
// a clear FATAL error: this build has no SQL engine yet, and it must not
// pretend to answer queries. It returns when ctx is canceled.
func refuseSQL(ctx context.Context, ln net.Listener, log *logrus.Logger) error {
	var wg sync.WaitGroup
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			wg.Wait()
			if ctx.Err() != nil {
				log.Info("pgproxy stopped")
				return nil
			}
			return err
		}
		wg.Go(func() {
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if err := refuseOne(conn); err != nil {
				log.WithError(err).WithField("remote", conn.RemoteAddr().String()).Debug("refused connection")
			}
		})
	}
}

func refuseOne(conn net.Conn) error {
	be := pgproto3.NewBackend(conn, conn)
	for {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return err
		}
		switch msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return err
			}
			continue
		case *pgproto3.CancelRequest:
			return nil
		case *pgproto3.StartupMessage:
			be.Send(&pgproto3.ErrorResponse{
				Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "0A000",
				Message: "pgproxy cannot execute SQL yet: this build has the storage layer but no SQL engine",
				Hint:    "the wire protocol, planner and executor are not part of this build",
			})
			return be.Flush()
		default:
			return errors.New("unexpected startup message")
		}
	}
}
