package planner

import (
	"net"

	"github.com/pggraph/pggraph/adapters"
)

// Every graph commit a session makes names the SQL role that made it,
// with the session's application_name and client address
// (graph.Commit; shown by graph.commits). The serving process is kept
// beside them (graph.Commit.Process).

// attribution is the session's (role, application_name, client address).
func (s *session) attribution() (actor, application, client string) {
	actor = s.currentRole()
	if s.info.Settings != nil {
		application, _ = s.info.Settings.Get("application_name")
	}
	switch a := s.info.RemoteAddr.(type) {
	case *net.TCPAddr:
		client = a.IP.String()
	case nil:
	default:
		client = a.String()
	}
	return actor, application, client
}

// writeOptions attributes a write to the session.
func (s *session) writeOptions(o adapters.WriteOptions) adapters.WriteOptions {
	o.Actor, o.Application, o.Client = s.attribution()
	return o
}

// currentRole is the role whose privileges the session's statements use:
// SET ROLE's role, else the session user.
func (s *session) currentRole() string {
	if s.info.Settings != nil {
		if r, ok := s.info.Settings.Get("role"); ok && r != "" && r != "none" {
			return r
		}
	}
	return s.info.User
}
