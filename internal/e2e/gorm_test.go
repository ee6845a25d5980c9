package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// gormModule is the Go module of the GORM and goose flows
// (testdata/gorm): its own go.mod pins gorm.io/gorm, gorm.io/driver/postgres
// and github.com/pressly/goose/v3, so pggraph's module does not depend on
// them. .ci/run and make deps download it.
const gormModule = "testdata/gorm"

const gormInstall = "cd internal/e2e/testdata/gorm && go mod download"

var (
	gormOnce sync.Once
	gormBin  string
	gormErr  error
	gormOut  []byte
)

// gormFlowBinary builds testdata/gorm once per run.
func gormFlowBinary(t *testing.T) string {
	t.Helper()
	gormOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pggraph-e2e-gorm-")
		if err != nil {
			gormErr = err
			return
		}
		gormBin = filepath.Join(dir, "gorm-flow")
		build := exec.Command(goTool(), "build", "-o", gormBin, ".")
		build.Dir = gormModule
		gormOut, gormErr = build.CombinedOutput()
	})
	if gormErr != nil {
		t.Fatalf("building %s: %v (download its modules with: %s)\n%s", gormModule, gormErr, gormInstall, gormOut)
	}
	return gormBin
}

// TestGORM runs an application's life through GORM 1.31 and its pgx
// driver (testdata/gorm/main.go): AutoMigrate of has-one, has-many,
// belongs-to and many-to-many models (twice, the second a no-op read
// from the catalogs), the migrator's introspection, creates with nested
// associations, preloads, joins, numeric and jsonb columns and filters,
// updates, upserts, association mode, committed, rolled-back and nested
// transactions, soft and hard deletes, constraint errors, and a later
// AutoMigrate adding a column and an index, then renames and drops. The
// transcript must be PostgreSQL 15's.
func TestGORM(t *testing.T) {
	bin := gormFlowBinary(t)
	runORMFlow(t, ormFlow{argv: []string{bin, "gorm"}, install: gormInstall})
}

// TestGoose runs goose 3.30's SQL migrations (testdata/gorm/goose) over
// pgx's database/sql driver: up by one, up, status through
// information_schema, down, down to zero, up again, and a migration whose
// second statement fails rolled back whole. The transcript must be
// PostgreSQL 15's.
func TestGoose(t *testing.T) {
	bin := gormFlowBinary(t)
	dir, err := filepath.Abs(filepath.Join(gormModule, "goose"))
	if err != nil {
		t.Fatal(err)
	}
	runORMFlow(t, ormFlow{argv: []string{bin, "goose", dir}, install: gormInstall})
}
