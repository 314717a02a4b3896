-- The rows of one table, merged on read, at the latest snapshot or in the past (snapshot, tag, timestamp), and
-- its data-shaped system tables "db"."t$audit_log" and "db"."t$ro".
--
-- Examples that run anywhere: `-- setup:` builds a tiny warehouse (Paimon SQL, run by paimon_sql.connect on a
-- new temporary folder); each `-- try:` then runs on a plain DuckDB after install() and returns its `-- gives:`
-- (tests/unit/test_functions_examples.py runs them).
-- setup: CREATE DATABASE db
-- setup: CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')
-- setup: INSERT INTO db.t VALUES (1, 'a'), (2, 'b')
-- setup: INSERT INTO db.t VALUES (2, 'B')
-- setup: CALL sys.create_tag('db.t', 'v1', 1)
-- setup: CALL sys.compact('db.t')
-- setup: INSERT INTO db.t VALUES (3, 'c')

-- name: paimon_scan
-- signature: paimon_scan(table_name VARCHAR, snapshot := BIGINT, tag := VARCHAR, timestamp := TIMESTAMP) -> TABLE(<the columns of the table, or of the snapshot's schema>)
-- doc: The rows of a Paimon table ('db.table'): merged on read for primary-key tables, deletion vectors
-- doc: applied, columns mapped across schema evolution. Without time travel it reads the latest snapshot at
-- doc: each query. At most one of the named arguments travels in time: `snapshot := 2` (a snapshot id),
-- doc: `tag := 'tag1'`, or `timestamp := '2024-05-14 10:00:00'` (the latest snapshot committed at or before
-- doc: that local wall-clock time, as Paimon's `scan.timestamp`); a time-travel read has the columns of the
-- doc: snapshot's schema, like `VERSION AS OF` in a session. Filters and projections on the result are pushed
-- doc: into planning (partition, bucket and statistics pruning) and the rows stream. The arguments must be
-- doc: constants: `__paimon_scan_bind` resolves the table and schema while DuckDB binds the query, and the same
-- doc: arguments reach the one `__paimon_scan` source as pushed-down filters on its hidden columns.
-- example: SELECT id, name FROM paimon_scan('db.pk_dedup') WHERE id <= 2 ORDER BY id
-- expect: [(1, 'a2'), (2, None)]
-- example: SELECT * FROM paimon_scan('db.append_tags', tag := 'tag1') ORDER BY id
-- expect: [(1, 'a', 10), (2, 'b', 20), (4, 'd', 40)]
-- example: SELECT id, extra FROM paimon_scan('db.append_tags', snapshot := 3) WHERE extra IS NOT NULL
-- expect: [(9, 'x')]
-- example: SELECT count(*) FROM paimon_scan('db.append_tags', timestamp := '2100-01-01 00:00:00')
-- expect: [(6,)]
-- try: SELECT * FROM paimon_scan('db.t') ORDER BY id
-- gives: [(1, 'a'), (2, 'B'), (3, 'c')]
-- try: SELECT * FROM paimon_scan('db.t', snapshot := 1) ORDER BY id
-- gives: [(1, 'a'), (2, 'b')]
-- try: SELECT * FROM paimon_scan('db.t', tag := 'v1') WHERE id = 2
-- gives: [(2, 'b')]
-- try: SELECT count(*) FROM paimon_scan('db.t', timestamp := '2100-01-01 00:00:00')
-- gives: [(3,)]
CREATE OR REPLACE MACRO paimon_scan(table_name, snapshot := NULL, tag := NULL, "timestamp" := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_snapshot, __paimon_tag, __paimon_timestamp)
    FROM query_table(__paimon_scan_bind(table_name, snapshot, tag, "timestamp"))
    WHERE __paimon_table = table_name
        AND CASE WHEN snapshot IS NULL THEN __paimon_snapshot IS NULL ELSE __paimon_snapshot = snapshot END
        AND CASE WHEN tag IS NULL THEN __paimon_tag IS NULL ELSE __paimon_tag = tag END
        AND CASE WHEN "timestamp" IS NULL THEN __paimon_timestamp IS NULL
            ELSE __paimon_timestamp = "timestamp" END;

-- name: paimon_audit_log
-- signature: paimon_audit_log(table_name VARCHAR) -> TABLE(rowkind VARCHAR, <the table's columns>)
-- doc: The system table "db"."t$audit_log": the latest rows, each with its row kind first. A batch read of
-- doc: the latest state holds only inserts, so rowkind is always '+I' (as in Paimon's Java batch read).
-- doc: Materialized at each call (like the session's system table), not streamed.
-- example: SELECT rowkind, id FROM paimon_audit_log('db.pk_dedup') ORDER BY id
-- expect: [('+I', 1), ('+I', 2), ('+I', 3), ('+I', 4)]
-- try: SELECT rowkind, id, name FROM paimon_audit_log('db.t') ORDER BY id
-- gives: [('+I', 1, 'a'), ('+I', 2, 'B'), ('+I', 3, 'c')]
CREATE OR REPLACE MACRO paimon_audit_log(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table)
    FROM query_table(__paimon_audit_log_bind(table_name))
    WHERE __paimon_table = table_name;

-- name: paimon_ro
-- signature: paimon_ro(table_name VARCHAR) -> TABLE(<the table's columns>)
-- doc: The system table "db"."t$ro" (read-optimized): only the files of the highest level of each bucket,
-- doc: read without merging (for primary-key tables: the state as of the last full compaction).
-- doc: Materialized at each call (like the session's system table), not streamed.
-- example: SELECT id, name FROM paimon_ro('db.pk_dv') ORDER BY id
-- expect: [(1, 'a2'), (2, None), (3, 'c'), (4, 'd')]
-- try: SELECT * FROM paimon_ro('db.t') ORDER BY id
-- gives: [(1, 'a'), (2, 'B')]
CREATE OR REPLACE MACRO paimon_ro(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table)
    FROM query_table(__paimon_ro_bind(table_name))
    WHERE __paimon_table = table_name;
