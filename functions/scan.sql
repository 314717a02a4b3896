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
CREATE OR REPLACE MACRO paimon_ro(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table)
    FROM query_table(__paimon_ro_bind(table_name))
    WHERE __paimon_table = table_name;
