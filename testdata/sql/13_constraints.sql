-- Constraint and index metadata from DDL (named and default constraint
-- names, UNIQUE, CHECK, foreign-key actions, plain indexes, defaults and
-- comments) as pg_catalog and information_schema show it.
CREATE TABLE cat (id int PRIMARY KEY, code text UNIQUE NOT NULL, label text DEFAULT 'none');
CREATE TABLE item (
  id int8 CONSTRAINT item_pk PRIMARY KEY,
  cat_id int REFERENCES cat(id) ON DELETE CASCADE,
  alt_cat int,
  qty int NOT NULL DEFAULT 0 CHECK (qty >= 0),
  price int,
  sku text,
  CONSTRAINT item_sku_uq UNIQUE (sku, cat_id),
  CONSTRAINT price_positive CHECK (price > 0),
  CONSTRAINT item_alt_fk FOREIGN KEY (alt_cat) REFERENCES cat(id) ON UPDATE CASCADE ON DELETE SET NULL
);
CREATE INDEX item_qty_idx ON item (qty);
CREATE UNIQUE INDEX item_price_sku_idx ON item (price, sku);
COMMENT ON TABLE item IS 'things we sell';
COMMENT ON COLUMN item.qty IS 'on hand';
SELECT conname, contype, conkey, confkey, confupdtype, confdeltype, confmatchtype, convalidated, connoinherit FROM pg_constraint WHERE conrelid = 'item'::regclass ORDER BY conname;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid IN ('item'::regclass, 'cat'::regclass) ORDER BY conname;
SELECT conname, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'item'::regclass AND contype = 'c' ORDER BY conname;
SELECT c.conname, i.relname FROM pg_constraint c JOIN pg_class i ON i.oid = c.conindid WHERE c.conrelid = 'item'::regclass ORDER BY 1;
SELECT ic.relname, i.indisprimary, i.indisunique, i.indkey::text, i.indnatts, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = 'item'::regclass ORDER BY 1;
SELECT ic.relname, ic.relkind, ic.relnatts FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = 'item'::regclass ORDER BY 1;
SELECT pg_get_indexdef(i.indexrelid, 2, true) FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE ic.relname = 'item_sku_uq';
SELECT relname, relhasindex, relchecks FROM pg_class WHERE relname IN ('item', 'cat') ORDER BY 1;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'item' ORDER BY 1;
SELECT a.attname, a.atthasdef, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = 'item'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT obj_description('item'::regclass, 'pg_class'), col_description('item'::regclass, 4), col_description('item'::regclass, 5);
SELECT constraint_name, constraint_type, is_deferrable, initially_deferred FROM information_schema.table_constraints WHERE table_name = 'item' AND constraint_type <> 'CHECK' ORDER BY 1;
SELECT constraint_name, column_name, ordinal_position, position_in_unique_constraint FROM information_schema.key_column_usage WHERE table_name = 'item' ORDER BY 1, 3;
SELECT constraint_name, unique_constraint_name, match_option, update_rule, delete_rule FROM information_schema.referential_constraints WHERE constraint_schema = 'public' ORDER BY 1;
SELECT column_name, column_default, is_nullable FROM information_schema.columns WHERE table_name = 'item' ORDER BY ordinal_position;
SELECT count(*) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid WHERE t.relname = 'item' AND c.contype = 'c';
