package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/pggraph/pggraph/console"
	"github.com/pggraph/pggraph/wire"
)

// startConsole serves the web console on --http-listen. Its SQL sessions
// reach srv through an in-process listener served under ctx; with TLS
// configured for SQL the console is served over HTTPS with the same
// certificate and its sessions negotiate TLS too, so hostssl rules and
// --require-tls apply to it as to any client.
func startConsole(ctx context.Context, cfg *serveConfig, srv *wire.Server, env *runEnv) (stop func(), err error) {
	var tlsCfg *tls.Config
	switch {
	case cfg.tlsCert != "":
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("--http-listen: loading the TLS certificate: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	case cfg.tlsSelfSigned:
		host, _, _ := net.SplitHostPort(cfg.httpListen)
		cert, err := wire.SelfSignedCertificate(host)
		if err != nil {
			return nil, fmt.Errorf("--http-listen: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	hl, err := net.Listen("tcp", cfg.httpListen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.httpListen, err)
	}
	pipe := console.NewPipeListener()
	go func() { _ = srv.Serve(ctx, pipe) }()
	hs := &http.Server{
		Handler:           console.New(console.Config{Dial: pipe.Dial, TLS: tlsCfg != nil}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		TLSConfig:         tlsCfg,
	}
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
		hl = tls.NewListener(hl, tlsCfg)
	}
	go func() {
		if err := hs.Serve(hl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(env.stderr, "pgproxy console stopped: %v\n", err)
		}
	}()
	fmt.Fprintf(env.stdout, "pgproxy console on %s://%s/\n", scheme, hl.Addr())
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		_ = pipe.Close()
	}, nil
}
