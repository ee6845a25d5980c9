-- pg_constraint and pg_index rows of each constraint kind, in the
-- columns that mean the same here as in PostgreSQL (OIDs differ).
CREATE TABLE pgc_parent (id int PRIMARY KEY, code text UNIQUE, n int CONSTRAINT pgc_n_positive CHECK (n > 0));
CREATE TABLE pgc_child (id int PRIMARY KEY, parent int REFERENCES pgc_parent (id) ON DELETE CASCADE ON UPDATE SET NULL, code text REFERENCES pgc_parent (code));
CREATE INDEX pgc_child_parent ON pgc_child (parent, code);
CREATE DOMAIN pgc_dom AS int CONSTRAINT pgc_dom_check CHECK (VALUE > 1);
SELECT conname, contype, condeferrable, condeferred, convalidated, conrelid::regclass, contypid::regtype, conindid::regclass, conparentid, confrelid::regclass, confupdtype, confdeltype, confmatchtype, conislocal, coninhcount, connoinherit, conkey, confkey, confdelsetcols, conexclop FROM pg_constraint WHERE conname LIKE 'pgc%' ORDER BY conname;
SELECT indexrelid::regclass, indrelid::regclass, indnatts, indnkeyatts, indisunique, indnullsnotdistinct, indisprimary, indisexclusion, indimmediate, indisclustered, indisvalid, indcheckxmin, indisready, indislive, indisreplident, indkey, indoption, indexprs, indpred FROM pg_index WHERE indrelid IN ('pgc_parent'::regclass, 'pgc_child'::regclass) ORDER BY 1::text;
