# pggraph — build, run, test and measure pgproxy.
#
#   make run     build pgproxy and serve ./data (initialized if absent)
#   make test    the whole suite: gofmt check, go vet, staticcheck, go test -race
#   make test-short  the edit–test loop: go test -short (no PostgreSQL, psql, Node, Java
#                or Python; tests that need them skip), no race detector
#   make bench   storage primitives vs the raw fsync floor, the wire and SQL write paths vs
#                PostgreSQL 15 in the same run (PGGRAPH_BENCH_SQL_ROWS, default 10M, sizes the
#                COPY), graph traversals (PGGRAPH_BENCH_GRAPH_PERSONS, default 100k), results
#                in bench-results/

GO          ?= go
BIN         := bin/pgproxy
DATA        ?= ./data
LISTEN      ?= 127.0.0.1:5433
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Crash and fault tests need the failpoints compiled in.
TEST_TAGS   := failpoints
ORACLE_DIR  := internal/oracle

.PHONY: build run test test-short bench regress-share lint fmt fmt-check vet staticcheck deps unit fuzz clean

build:
	$(GO) build -o $(BIN) ./cmd/pgproxy

run: build
	$(BIN) serve --data $(DATA) --listen $(LISTEN)

test: deps fmt-check vet staticcheck unit fuzz

# Every fuzz target in the module runs for FUZZTIME on top of its seed
# corpus (the seeds also run in `unit`). A crash fails the build and
# leaves the input under the package's testdata/fuzz/. Go's fuzz engine
# sometimes ends a run at -fuzztime with "context deadline exceeded" and
# no failing input; that target is run once more, and a second failure
# of any kind fails the build.
FUZZTIME ?= 8s
fuzz:
	@set -e; $(GO) list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do \
		for t in $$(grep -hoE '^func Fuzz[A-Za-z0-9_]+' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
			echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
			ok=; for try in 1 2; do \
				if $(GO) test -tags $(TEST_TAGS) -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg > /tmp/pggraph-fuzz.log 2>&1; then ok=1; break; fi; \
				if grep -q 'Failing input written' /tmp/pggraph-fuzz.log || ! grep -q 'context deadline exceeded' /tmp/pggraph-fuzz.log; then break; fi; \
				echo "  (the fuzz engine stopped on its own deadline without a failing input; running $$t once more)"; \
			done; \
			[ -n "$$ok" ] || { cat /tmp/pggraph-fuzz.log; exit 1; }; \
		done; \
	done

# testing.Short() skips every test that needs PostgreSQL 15, psql or a
# Node/Java/Python client (internal/pgtest.SkipShort); never used by CI.
test-short:
	$(GO) test -short -tags $(TEST_TAGS) ./...

unit:
	$(GO) test -race -tags $(TEST_TAGS) -timeout 30m ./...

# Node modules pinned by package-lock.json: the official-Lance oracle, the
# node-postgres / postgres.js client tests and the end-to-end knex,
# node-postgres, Sequelize and TypeORM flows; the GORM/goose flows' Go
# module (internal/e2e/testdata/gorm). Debian packages the tests drive
# (PostgreSQL 15, psql, psycopg, SQLAlchemy, Alembic, Django, JDK + pgjdbc,
# Node.js) are installed by
# .ci/run; deps installs the ones the end-to-end tests need when it runs
# as root and they are missing, and names them otherwise.
NPM_DIRS := $(ORACLE_DIR) wire/testdata/clients/node internal/e2e/testdata/knex internal/e2e/testdata/orm
deps:
	@missing=; \
	[ -x /usr/lib/postgresql/15/bin/postgres ] || missing="$$missing postgresql-15"; \
	[ -x /usr/lib/postgresql/15/bin/psql ] || missing="$$missing postgresql-client-15"; \
	/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || missing="$$missing python3-psycopg2"; \
	/usr/bin/python3 -c 'import sqlalchemy' 2>/dev/null || missing="$$missing python3-sqlalchemy"; \
	/usr/bin/python3 -c 'import alembic' 2>/dev/null || missing="$$missing python3-alembic"; \
	/usr/bin/python3 -c 'import django' 2>/dev/null || missing="$$missing python3-django"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	command -v javac >/dev/null 2>&1 || missing="$$missing openjdk-17-jdk-headless"; \
	[ -f /usr/share/java/postgresql.jar ] || missing="$$missing libpostgresql-jdbc-java"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing Debian packages:$$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing || exit 1; \
		else \
			echo "missing Debian packages; install them with: sudo apt-get install -y$$missing"; exit 1; \
		fi; \
	fi
	@for d in $(NPM_DIRS); do \
		if [ -f $$d/package-lock.json ] && [ ! -d $$d/node_modules ]; then \
			echo "installing npm packages: npm ci --prefix $$d"; \
			npm ci --prefix $$d --no-audit --no-fund || exit 1; \
		fi; \
	done
	@cd internal/e2e/testdata/gorm && $(GO) mod download

lint: fmt-check vet staticcheck

fmt:
	gofmt -w $$(git ls-files '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags $(TEST_TAGS) ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags $(TEST_TAGS) ./...

# Each suite prints its table and writes bench-results/<suite>-<time>.json.
bench: build
	$(BIN) bench --suite objstore --dir . --rounds 5 --iterations 200
	$(BIN) bench --suite lance --dir . --rounds 3
	$(BIN) bench --suite wire --dir . --rounds 5 --iterations 2000
	$(BIN) bench --suite sql --dir . --rounds 3 --iterations 200
	$(BIN) bench --suite txn --dir .
	$(BIN) bench-graph --data .
	$(GO) run ./exec/cmd/execbench -pgproxy $(BIN)
	$(GO) run ./exec/cmd/graphbench -pgproxy $(BIN)
	$(GO) run ./internal/soak -pgproxy $(BIN) -duration 120s

# The share of PostgreSQL 15's own regression SQL whose psql output is
# identical on pgproxy (docs/sql.md, "PostgreSQL's regression SQL"):
# REGRESS_DIR is test/sql/postgres_regress of a libpg_query checkout on
# its 15-latest branch (not vendored here); REGRESS_RUN limits the
# scripts (a regular expression). Each script's differing statements,
# with both outputs, go to bench-results/regress/.
REGRESS_DIR ?=
REGRESS_RUN ?=
regress-share: build
	@[ -n "$(REGRESS_DIR)" ] || { echo "set REGRESS_DIR: git clone -b 15-latest https://github.com/pganalyze/libpg_query; REGRESS_DIR=libpg_query/test/sql/postgres_regress"; exit 2; }
	$(GO) run ./internal/regress/share -dir $(REGRESS_DIR) -pgproxy $(BIN) -run '$(REGRESS_RUN)' -diffs bench-results/regress

clean:
	rm -rf bin
