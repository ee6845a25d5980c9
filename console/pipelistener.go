package console

import (
	"context"
	"errors"
	"net"
	"sync"
)

// PipeListener hands the protocol server in-process connections: the
// console's SQL sessions reach the server without a socket, and each
// carries the browser's address as its remote address, so pg_hba rules,
// the failed-login limiter and pg_stat_activity see the console user's
// real client and not a loopback connection that could be trusted more.
type PipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// NewPipeListener returns an open listener; serve it with the protocol
// server's Serve like a TCP listener.
func NewPipeListener() *PipeListener {
	return &PipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// pipeAddr is the listener's own address.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "console" }

// ErrListenerClosed is returned by Dial and Accept after Close.
var ErrListenerClosed = errors.New("console: in-process listener closed")

// Accept waits for the next connection Dial opens.
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, ErrListenerClosed
	}
}

// Close stops Accept and Dial; connections already handed over stay open.
func (l *PipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr is the listener's address ("console").
func (l *PipeListener) Addr() net.Addr { return pipeAddr{} }

// Dial opens a connection to the server whose remote address, as the
// server sees it, is remote.
func (l *PipeListener) Dial(ctx context.Context, remote net.Addr) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- &remoteConn{Conn: server, remote: remote}:
		return client, nil
	case <-l.closed:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, ErrListenerClosed
}

// remoteConn is the server's end of a pipe, reporting the browser's
// address.
type remoteConn struct {
	net.Conn
	remote net.Addr
}

func (c *remoteConn) RemoteAddr() net.Addr { return c.remote }
