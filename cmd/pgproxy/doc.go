// Command pgproxy is the pggraph server and its operator tools.
//
//	pgproxy serve   --data DIR [--listen HOST:PORT] [--auth METHOD] [--tls-cert F --tls-key F]
//	pgproxy init    --data DIR
//	pgproxy verify  --data DIR
//	pgproxy recover --data DIR
//	pgproxy bench   [--dir DIR] [--iterations N] [--rounds R] [--out FILE]
//
// Every flag can also be given as an environment variable: --tls-cert is
// PGGRAPH_TLS_CERT, and so on. A flag on the command line wins over the
// environment, which wins over the default. Logging goes to stderr through
// logrus; --log-level and --log-format choose level and text/json.
//
// A data directory is only ever modified by init (or serve initializing
// an empty directory); every command first checks that the directory is
// usable and names the path and the problem when it is not.
package main
