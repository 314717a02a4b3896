-- Lake debugging: what changed between two versions of a table, and why a key has the value it has.
-- (`CALL sys.check_table(table => 'db.t')` checks that a table is intact; in the shell, `.tree db.t`
-- prints its snapshot → manifest → file tree.)
--
-- Examples that run anywhere: `-- setup:` builds a tiny warehouse; each `-- try:` runs on a plain DuckDB
-- after install() and returns its `-- gives:`.
-- setup: CREATE DATABASE db
-- setup: CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')
-- setup: INSERT INTO db.t VALUES (1, 'a'), (2, 'b')
-- setup: CALL sys.create_tag('db.t', 'v1', 1)
-- setup: INSERT INTO db.t VALUES (2, 'B'), (3, 'c')
-- setup: DELETE FROM db.t WHERE id = 1

-- name: paimon_diff
-- signature: paimon_diff(table_name VARCHAR, from_version, to_version := NULL) -> TABLE(change VARCHAR, <the key columns>, changed_columns VARCHAR[], before STRUCT(<the table's columns>), after STRUCT(<the table's columns>))
-- doc: What changed in a table between two versions: `from_version` and `to_version` are snapshot ids or tag
-- doc: names (`to_version` defaults to the latest snapshot; a NULL `from_version` means the empty table).
-- doc: Both versions are read as a reader sees them (merged, deletion vectors applied). A primary-key table
-- doc: is compared per key: `change` is 'added', 'removed' or 'changed' (then `changed_columns` names the
-- doc: columns that differ); a table without a key is compared as multisets of rows ('added' / 'removed').
-- doc: `before` and `after` hold the two images. The newer version's schema names the columns.
-- example: SELECT change, id, changed_columns FROM paimon_diff('db.pk_dedup', 1, 2) ORDER BY id
-- expect: [('changed', 1, ['name', 'v']), ('added', 3, None)]
-- try: SELECT change, id, changed_columns, before.name AS old, after.name AS new FROM paimon_diff('db.t', 1, 3) ORDER BY id
-- gives: [('removed', 1, None, 'a', None), ('changed', 2, ['name'], 'b', 'B'), ('added', 3, None, None, 'c')]
-- try: SELECT change, id FROM paimon_diff('db.t', 'v1') ORDER BY id
-- gives: [('removed', 1), ('changed', 2), ('added', 3)]
CREATE OR REPLACE MACRO paimon_diff(table_name, from_version, to_version := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_from, __paimon_to)
    FROM query_table(__paimon_diff_bind(table_name, CAST(from_version AS VARCHAR), CAST(to_version AS VARCHAR)))
    WHERE __paimon_table = table_name
        AND CASE WHEN from_version IS NULL THEN __paimon_from IS NULL
            ELSE __paimon_from = CAST(from_version AS VARCHAR) END
        AND CASE WHEN to_version IS NULL THEN __paimon_to IS NULL
            ELSE __paimon_to = CAST(to_version AS VARCHAR) END;

-- name: paimon_explain_key
-- signature: paimon_explain_key(table_name VARCHAR, key, version := NULL) -> TABLE(verdict VARCHAR, reason VARCHAR, row STRUCT(<the table's columns>), rowkind VARCHAR, sequence_number BIGINT, partition VARCHAR, bucket INTEGER, level INTEGER, file VARCHAR, added_by_snapshot BIGINT, deleted_by_dv BOOLEAN)
-- doc: Why a key has the value it has: the first row (verdict 'result') is what a read returns for the key;
-- doc: then one row per version of the key the table stores, with its file, level, bucket, sequence number,
-- doc: row kind, whether a deletion vector deletes it, the snapshot that added its file, and its verdict:
-- doc: 'wins', 'superseded', 'merged' (partial-update, aggregation), 'deleted by deletion vector' or 'not
-- doc: visible yet' (a level-0 file of a deletion-vector or first-row table, before compaction), with the reason.
-- doc: `key` is the primary-key value, or a struct `{'k1': …, 'k2': …}` for a key of several columns;
-- doc: `version` (a snapshot id or tag name) looks at an older version.
-- example: SELECT verdict, row.name, sequence_number FROM paimon_explain_key('db.pk_dedup', 1)
-- expect: [('result', 'a2', 3), ('wins', 'a2', 3), ('superseded', 'a', 0)]
-- try: SELECT verdict, row.name, rowkind, added_by_snapshot FROM paimon_explain_key('db.t', 2)
-- gives: [('result', 'B', '+I', None), ('wins', 'B', '+I', 2), ('superseded', 'b', '+I', 1)]
-- try: SELECT verdict, row.name, rowkind FROM paimon_explain_key('db.t', 1)
-- gives: [('result', 'a', '-D'), ('wins', 'a', '-D'), ('superseded', 'a', '+I')]
CREATE OR REPLACE MACRO paimon_explain_key(table_name, key, version := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_key, __paimon_to)
    FROM query_table(__paimon_explain_key_bind(table_name, CAST(to_json(key) AS VARCHAR), CAST(version AS VARCHAR)))
    WHERE __paimon_table = table_name
        AND __paimon_key = CAST(to_json(key) AS VARCHAR)
        AND CASE WHEN version IS NULL THEN __paimon_to IS NULL
            ELSE __paimon_to = CAST(version AS VARCHAR) END;
