package main

import (
	"flag"
	"io"
	"testing"
)

// TestServeByteSizeFlags checks that the serve memory flags take bytes
// or PostgreSQL's memory units, keep their defaults when unset, and
// refuse what is no size.
func TestServeByteSizeFlags(t *testing.T) {
	cases := []struct {
		args                      []string
		query, server, limit, buf int64
		bad                       bool
	}{
		{args: nil, query: 3 << 29, server: 2 << 30, limit: 0, buf: 512 << 20},
		{args: []string{"--query-memory", "16777216"}, query: 16 << 20, server: 2 << 30, buf: 512 << 20},
		{args: []string{"--query-memory", "16MB", "--server-query-memory", "1GB"}, query: 16 << 20, server: 1 << 30, buf: 512 << 20},
		{args: []string{"--query-memory=512kB", "--memory-limit=3GB", "--max-buffered-bytes=2MB"}, query: 512 << 10, server: 2 << 30, limit: 3 << 30, buf: 2 << 20},
		{args: []string{"--query-memory", "0"}, query: 0, server: 2 << 30, buf: 512 << 20},
		{args: []string{"--query-memory", "16 MB"}, query: 16 << 20, server: 2 << 30, buf: 512 << 20},
		{args: []string{"--query-memory", "16MiB"}, bad: true},
		{args: []string{"--query-memory", "MB"}, bad: true},
		{args: []string{"--server-query-memory", "lots"}, bad: true},
		{args: []string{"--memory-limit", "-1GB"}, bad: true},
	}
	for _, tc := range cases {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c := serveFlags(fs)
		err := fs.Parse(tc.args)
		if tc.bad {
			if err == nil {
				t.Errorf("%v: accepted", tc.args)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if c.queryMemory != tc.query || c.serverMemory != tc.server || c.memoryLimit != tc.limit || c.maxBuffered != tc.buf {
			t.Errorf("%v: query %d server %d limit %d buffered %d, want %d %d %d %d", tc.args, c.queryMemory, c.serverMemory, c.memoryLimit, c.maxBuffered, tc.query, tc.server, tc.limit, tc.buf)
		}
	}
}
