-- SQLAlchemy 1.4 reflection (inspect(): table names, columns, pk, fks,
-- indexes, unique and check constraints, comments, views, schemas,
-- sequences) as captured from its traffic against PostgreSQL 15; table
-- OIDs are written as 'name'::regclass and OID-valued outputs compared
-- as booleans, since OIDs differ between the two systems.
CREATE TABLE cat (id int PRIMARY KEY, code text UNIQUE NOT NULL, label varchar(20) DEFAULT 'none');
CREATE TABLE item (
  id int8 CONSTRAINT item_pk PRIMARY KEY,
  cat_id int REFERENCES cat(id) ON DELETE CASCADE,
  alt_cat int,
  qty int NOT NULL DEFAULT 0 CHECK (qty >= 0),
  price int,
  sku text,
  made timestamptz,
  CONSTRAINT item_sku_uq UNIQUE (sku, cat_id),
  CONSTRAINT price_positive CHECK (price > 0),
  CONSTRAINT item_alt_fk FOREIGN KEY (alt_cat) REFERENCES cat(id) ON UPDATE CASCADE ON DELETE SET NULL
);
CREATE INDEX item_qty_idx ON item (qty);
CREATE UNIQUE INDEX item_made_idx ON item (made, id);
COMMENT ON TABLE item IS 'things we sell';
COMMENT ON COLUMN item.qty IS 'on hand';
SELECT t.oid, typarray
	FROM pg_type t JOIN pg_namespace ns
	    ON typnamespace = ns.oid
	WHERE typname = 'hstore';
select current_schema();
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind in ('r', 'p');
SELECT c.oid = 'item'::regclass OR c.oid = 'cat'::regclass
	            FROM pg_catalog.pg_class c
	            LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	            WHERE (pg_catalog.pg_table_is_visible(c.oid))
	            AND c.relname = 'item' AND c.relkind in
	            ('r', 'v', 'm', 'f', 'p');
SELECT a.attname,
	              pg_catalog.format_type(a.atttypid, a.atttypmod),
	              (
	                SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid)
	                FROM pg_catalog.pg_attrdef d
	                WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
	                AND a.atthasdef
	              ) AS DEFAULT,
	              a.attnotnull,
	              a.attrelid = 'item'::regclass as table_oid,
	              pgd.description as comment,
	              a.attgenerated as generated,
	                              (SELECT json_build_object(
	                    'always', a.attidentity = 'a',
	                    'start', s.seqstart,
	                    'increment', s.seqincrement,
	                    'minvalue', s.seqmin,
	                    'maxvalue', s.seqmax,
	                    'cache', s.seqcache,
	                    'cycle', s.seqcycle)
	                FROM pg_catalog.pg_sequence s
	                JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
	                WHERE c.relkind = 'S'
	                AND a.attidentity != ''
	                AND s.seqrelid = pg_catalog.pg_get_serial_sequence(
	                    a.attrelid::regclass::text, a.attname
	                )::regclass::oid
	                ) as identity_options                
	            FROM pg_catalog.pg_attribute a
	            LEFT JOIN pg_catalog.pg_description pgd ON (
	                pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum)
	            WHERE a.attrelid = 'item'::regclass
	            AND a.attnum > 0 AND NOT a.attisdropped
	            ORDER BY a.attnum;
SELECT t.typname as "name",
	               pg_catalog.format_type(t.typbasetype, t.typtypmod) as "attype",
	               not t.typnotnull as "nullable",
	               t.typdefault as "default",
	               pg_catalog.pg_type_is_visible(t.oid) as "visible",
	               n.nspname as "schema"
	            FROM pg_catalog.pg_type t
	               LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
	            WHERE t.typtype = 'd';
SELECT t.typname as "name",
	               -- no enum defaults in 8.4 at least
	               -- t.typdefault as "default",
	               pg_catalog.pg_type_is_visible(t.oid) as "visible",
	               n.nspname as "schema",
	               e.enumlabel as "label"
	            FROM pg_catalog.pg_type t
	                 LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
	                 LEFT JOIN pg_catalog.pg_enum e ON t.oid = e.enumtypid
	            WHERE t.typtype = 'e'
	        ORDER BY "schema", "name", e.oid;
SELECT a.attname
	                FROM pg_attribute a JOIN (
	                    SELECT unnest(ix.indkey) attnum,
	                           generate_subscripts(ix.indkey, 1) ord
	                    FROM pg_index ix
	                    WHERE ix.indrelid = 'item'::regclass AND ix.indisprimary
	                    ) k ON a.attnum=k.attnum
	                WHERE a.attrelid = 'item'::regclass
	                ORDER BY k.ord;
SELECT conname
	           FROM  pg_catalog.pg_constraint r
	           WHERE r.conrelid = 'item'::regclass AND r.contype = 'p'
	           ORDER BY 1;
SELECT r.conname,
	                pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
	                n.nspname as conschema
	          FROM  pg_catalog.pg_constraint r,
	                pg_namespace n,
	                pg_class c
	          WHERE r.conrelid = 'item'::regclass AND
	                r.contype = 'f' AND
	                c.oid = confrelid AND
	                n.oid = c.relnamespace
	          ORDER BY 1;
SELECT
	                  i.relname as relname,
	                  ix.indisunique, ix.indexprs,
	                  a.attname, a.attnum, c.conrelid IS NOT NULL AS has_con, ix.indkey::varchar,
	                  ix.indoption::varchar, i.reloptions, am.amname,
	                  pg_get_expr(ix.indpred, ix.indrelid),
	                  ix.indnkeyatts as indnkeyatts
	              FROM
	                  pg_class t
	                        join pg_index ix on t.oid = ix.indrelid
	                        join pg_class i on i.oid = ix.indexrelid
	                        left outer join
	                            pg_attribute a
	                            on t.oid = a.attrelid and a.attnum = ANY(ix.indkey)
	                        left outer join
	                            pg_constraint c
	                            on (ix.indrelid = c.conrelid and
	                                ix.indexrelid = c.conindid and
	                                c.contype in ('p', 'u', 'x'))
	                        left outer join
	                            pg_am am
	                            on i.relam = am.oid
	              WHERE
	                  t.relkind IN ('r', 'v', 'f', 'm', 'p')
	                  and t.oid = 'item'::regclass
	                  and ix.indisprimary = 'f'
	              ORDER BY
	                  t.relname,
	                  i.relname;
SELECT
	                cons.conname as name,
	                cons.conkey as key,
	                a.attnum as col_num,
	                a.attname as col_name
	            FROM
	                pg_catalog.pg_constraint cons
	                join pg_attribute a
	                  on cons.conrelid = a.attrelid AND
	                    a.attnum = ANY(cons.conkey)
	            WHERE
	                cons.conrelid = 'item'::regclass AND
	                cons.contype = 'u';
SELECT
	                cons.conname as name,
	                pg_get_constraintdef(cons.oid) as src
	            FROM
	                pg_catalog.pg_constraint cons
	            WHERE
	                cons.conrelid = 'item'::regclass AND
	                cons.contype = 'c';
SELECT
	                pgd.description as table_comment
	            FROM
	                pg_catalog.pg_description pgd
	            WHERE
	                pgd.objsubid = 0 AND
	                pgd.objoid = 'item'::regclass;
SELECT c.oid = 'item'::regclass OR c.oid = 'cat'::regclass
	            FROM pg_catalog.pg_class c
	            LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	            WHERE (pg_catalog.pg_table_is_visible(c.oid))
	            AND c.relname = 'cat' AND c.relkind in
	            ('r', 'v', 'm', 'f', 'p');
SELECT a.attname,
	              pg_catalog.format_type(a.atttypid, a.atttypmod),
	              (
	                SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid)
	                FROM pg_catalog.pg_attrdef d
	                WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
	                AND a.atthasdef
	              ) AS DEFAULT,
	              a.attnotnull,
	              a.attrelid = 'item'::regclass as table_oid,
	              pgd.description as comment,
	              a.attgenerated as generated,
	                              (SELECT json_build_object(
	                    'always', a.attidentity = 'a',
	                    'start', s.seqstart,
	                    'increment', s.seqincrement,
	                    'minvalue', s.seqmin,
	                    'maxvalue', s.seqmax,
	                    'cache', s.seqcache,
	                    'cycle', s.seqcycle)
	                FROM pg_catalog.pg_sequence s
	                JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
	                WHERE c.relkind = 'S'
	                AND a.attidentity != ''
	                AND s.seqrelid = pg_catalog.pg_get_serial_sequence(
	                    a.attrelid::regclass::text, a.attname
	                )::regclass::oid
	                ) as identity_options                
	            FROM pg_catalog.pg_attribute a
	            LEFT JOIN pg_catalog.pg_description pgd ON (
	                pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum)
	            WHERE a.attrelid = 'cat'::regclass
	            AND a.attnum > 0 AND NOT a.attisdropped
	            ORDER BY a.attnum;
SELECT a.attname
	                FROM pg_attribute a JOIN (
	                    SELECT unnest(ix.indkey) attnum,
	                           generate_subscripts(ix.indkey, 1) ord
	                    FROM pg_index ix
	                    WHERE ix.indrelid = 'cat'::regclass AND ix.indisprimary
	                    ) k ON a.attnum=k.attnum
	                WHERE a.attrelid = 'cat'::regclass
	                ORDER BY k.ord;
SELECT conname
	           FROM  pg_catalog.pg_constraint r
	           WHERE r.conrelid = 'cat'::regclass AND r.contype = 'p'
	           ORDER BY 1;
SELECT r.conname,
	                pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
	                n.nspname as conschema
	          FROM  pg_catalog.pg_constraint r,
	                pg_namespace n,
	                pg_class c
	          WHERE r.conrelid = 'cat'::regclass AND
	                r.contype = 'f' AND
	                c.oid = confrelid AND
	                n.oid = c.relnamespace
	          ORDER BY 1;
SELECT
	                  i.relname as relname,
	                  ix.indisunique, ix.indexprs,
	                  a.attname, a.attnum, c.conrelid IS NOT NULL AS has_con, ix.indkey::varchar,
	                  ix.indoption::varchar, i.reloptions, am.amname,
	                  pg_get_expr(ix.indpred, ix.indrelid),
	                  ix.indnkeyatts as indnkeyatts
	              FROM
	                  pg_class t
	                        join pg_index ix on t.oid = ix.indrelid
	                        join pg_class i on i.oid = ix.indexrelid
	                        left outer join
	                            pg_attribute a
	                            on t.oid = a.attrelid and a.attnum = ANY(ix.indkey)
	                        left outer join
	                            pg_constraint c
	                            on (ix.indrelid = c.conrelid and
	                                ix.indexrelid = c.conindid and
	                                c.contype in ('p', 'u', 'x'))
	                        left outer join
	                            pg_am am
	                            on i.relam = am.oid
	              WHERE
	                  t.relkind IN ('r', 'v', 'f', 'm', 'p')
	                  and t.oid = 'cat'::regclass
	                  and ix.indisprimary = 'f'
	              ORDER BY
	                  t.relname,
	                  i.relname;
SELECT
	                cons.conname as name,
	                cons.conkey as key,
	                a.attnum as col_num,
	                a.attname as col_name
	            FROM
	                pg_catalog.pg_constraint cons
	                join pg_attribute a
	                  on cons.conrelid = a.attrelid AND
	                    a.attnum = ANY(cons.conkey)
	            WHERE
	                cons.conrelid = 'cat'::regclass AND
	                cons.contype = 'u';
SELECT
	                cons.conname as name,
	                pg_get_constraintdef(cons.oid) as src
	            FROM
	                pg_catalog.pg_constraint cons
	            WHERE
	                cons.conrelid = 'cat'::regclass AND
	                cons.contype = 'c';
SELECT
	                pgd.description as table_comment
	            FROM
	                pg_catalog.pg_description pgd
	            WHERE
	                pgd.objsubid = 0 AND
	                pgd.objoid = 'cat'::regclass;
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm');
SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' ORDER BY nspname;
SELECT relname FROM pg_class c join pg_namespace n on n.oid=c.relnamespace where relkind='S' and n.nspname='public';
select relname from pg_class c join pg_namespace n on n.oid=c.relnamespace where pg_catalog.pg_table_is_visible(c.oid) and relname='item';
SELECT relname FROM pg_class c join pg_namespace n on n.oid=c.relnamespace where relkind='S' and n.nspname='public' and relname='nosuch';
-- TypeORM's column query casts table_catalog.table_schema.table_name to
-- regclass: the current database's name is accepted as a qualifier.
SELECT (quote_ident(current_database()) || '.public.item')::regclass = 'item'::regclass;
SELECT pg_catalog.col_description((current_database() || '.' || 'public' || '.' || 'item')::regclass::oid, 4);
SELECT 'nosuchdb.public.item'::regclass;
SELECT 'a.b.c.d'::regclass;
SELECT '"public"."item"'::regclass = 'item'::regclass;
SELECT ('"' || udt_schema || '"."' || udt_name || '"')::regtype::text, column_name FROM information_schema.columns WHERE table_name = 'item' ORDER BY ordinal_position;
SELECT '"int4"'::regtype, '"pg_catalog"."varchar"'::regtype, '"_int4"'::regtype;
SELECT '"INT4"'::regtype;
