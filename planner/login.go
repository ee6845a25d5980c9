package planner

import (
	"context"
	"github.com/pggraph/pggraph/access"
	"sync"
	"time"

	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Admission of a session by the role catalog, after wire authenticated
// the user: the role must exist and may log in (LOGIN), and a role with
// a CONNECTION LIMIT gets no more sessions than that in this process,
// superusers excepted, as PostgreSQL 15 decides in InitPostgres. A root
// without a role catalog admits everyone (package access).

// loginCounts counts the sessions of each role.
type loginCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// admitLogin checks user against the role catalog and returns what
// gives its connection back.
func (b *Backend) admitLogin(ctx context.Context, user, database string) (func(), error) {
	if b.Access == nil {
		return nil, nil
	}
	c, err := b.Access.Current(ctx)
	if err != nil {
		return nil, wire.Errorf(pgerr.IOError, "could not read the role catalog").WithDetail(err.Error())
	}
	if c.Bootstrap() {
		return nil, nil
	}
	r := c.Role(user)
	switch {
	case r == nil:
		return nil, wire.Errorf(wire.CodeInvalidAuthorization, "role \"%s\" does not exist", user)
	case !r.Login:
		return nil, wire.Errorf(wire.CodeInvalidAuthorization, "role \"%s\" is not permitted to log in", user)
	}
	if err := branchPrivilege(c, user, database, access.PrivConnect); err != nil {
		return nil, err
	}
	b.logins.mu.Lock()
	defer b.logins.mu.Unlock()
	if r.ConnLimit >= 0 && !r.Superuser && b.logins.n[user] >= int(r.ConnLimit) {
		return nil, wire.Errorf(wire.CodeTooManyConnections, "too many connections for role \"%s\"", user)
	}
	if b.logins.n == nil {
		b.logins.n = map[string]int{}
	}
	b.logins.n[user]++
	return func() {
		b.logins.mu.Lock()
		defer b.logins.mu.Unlock()
		if b.logins.n[user]--; b.logins.n[user] <= 0 {
			delete(b.logins.n, user)
		}
	}, nil
}

// PasswordValid reports whether a role's password may be used at t
// (VALID UNTIL); wire's authentication asks it through the credential
// lookup.
func passwordValid(validUntil *time.Time, t time.Time) bool {
	return validUntil == nil || t.Before(*validUntil)
}

// Credentials is wire.Config.Credentials over the role catalog: a role's
// stored secret, "" when it has none usable (no such role, no password,
// VALID UNTIL passed); not authoritative while the root has no catalog.
func (b *Backend) Credentials(user string) (secret string, authoritative bool) {
	c, err := b.Access.Current(context.Background())
	if err != nil {
		return "", true // cannot tell: refuse, as for a wrong password
	}
	if c.Bootstrap() {
		return "", false
	}
	r := c.Role(user)
	if r == nil || !passwordValid(r.ValidUntil, time.Now()) {
		return "", true
	}
	return r.Password, true
}
