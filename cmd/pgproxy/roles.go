package main

import (
	"context"
	"fmt"

	"github.com/pggraph/pggraph/access"
	"github.com/sirupsen/logrus"

	"github.com/pggraph/pggraph/wire"
)

// seedRoles creates the root's role catalog from the users file when the
// root has none (package access): its users become superusers. Once a
// catalog exists the file only bootstraps, so a user it adds later is
// reported, not created (CREATE ROLE creates roles).
func seedRoles(ctx context.Context, store *access.Store, usersFile string, log logrus.FieldLogger) error {
	if usersFile == "" {
		return nil
	}
	users, err := wire.LoadUsersFile(usersFile)
	if err != nil {
		return err
	}
	seeded, err := store.SeedUsers(ctx, users.Entries())
	if err != nil {
		return fmt.Errorf("seeding the role catalog from %s: %w", usersFile, err)
	}
	if seeded {
		log.WithField("roles", len(users.Entries())).Info("created the role catalog from the users file")
		return nil
	}
	cat, err := store.Current(ctx)
	if err != nil {
		return fmt.Errorf("reading the role catalog: %w", err)
	}
	for _, u := range users.Entries() {
		if cat.Role(u[0]) == nil {
			log.WithField("user", u[0]).Warn("the users file names a role the role catalog does not have; it cannot log in (use CREATE ROLE)")
		}
	}
	return nil
}
