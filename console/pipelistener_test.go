package console

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// The server's end of a console connection reports the browser's address
// (what pg_hba rules match), and a closed listener refuses both ends.
func TestPipeListenerCarriesTheRemoteAddress(t *testing.T) {
	l := NewPipeListener()
	remote := &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 40000}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	client, err := l.Dial(context.Background(), remote)
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if server.RemoteAddr().String() != "203.0.113.7:40000" {
		t.Fatalf("server sees %v", server.RemoteAddr())
	}
	go func() { _, _ = client.Write([]byte("x")) }()
	buf := make([]byte, 1)
	if _, err := server.Read(buf); err != nil || buf[0] != 'x' {
		t.Fatalf("read %q, %v", buf, err)
	}
	l.Close()
	if _, err := l.Accept(); !errors.Is(err, ErrListenerClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := l.Dial(ctx, remote); !errors.Is(err, ErrListenerClosed) {
		t.Fatalf("Dial after Close: %v", err)
	}
}
