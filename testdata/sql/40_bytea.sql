-- bytea input (hex and escape formats) and encode/decode, with
-- PostgreSQL's error codes.
SELECT '\x 12 34'::bytea, '\x'::bytea, '\xDEADbeef'::bytea;
SELECT '\xzz'::bytea;
SELECT '\x1'::bytea;
SELECT '\x1 2'::bytea;
SELECT 'abc\'::bytea;
SELECT '\\'::bytea, 'a\000b'::bytea, '\101\102'::bytea;
SELECT '\400'::bytea;
SELECT '\12'::bytea;
SELECT decode('zz', 'hex');
SELECT decode('a', 'hex');
SELECT decode(' 0a 0b ', 'hex'), decode('0 a', 'hex') IS NULL;
SELECT decode('a', 'base64');
SELECT decode('a', 'foo');
SELECT encode('\x00ff5c41'::bytea, 'escape'), encode('abc'::bytea, 'escape'), encode('\x'::bytea, 'escape');
SELECT decode('a\\b\000c', 'escape'), decode('\101', 'escape'), decode('plain', 'escape');
SELECT decode('bad\', 'escape');
SELECT decode('\9', 'escape');
SELECT encode(decode('héllo', 'escape'), 'hex'), length(decode('héllo', 'escape'));
SELECT encode('\x0102'::bytea, 'base64'), encode('\x0102'::bytea, 'hex'), octet_length('\x0102'::bytea);
