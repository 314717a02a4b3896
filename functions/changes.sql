-- Change data: what changed in a table between two snapshots, tags or instants, each row with its row kind.
-- The same as a session's "db"."t$audit_log" /*+ OPTIONS('incremental-between' = 'start,end') */.
--
-- Examples that run anywhere: `-- setup:` builds a tiny warehouse (Paimon SQL, run by paimon_sql.connect on a
-- new temporary folder); each `-- try:` then runs on a plain DuckDB after install() and returns its `-- gives:`
-- (tests/unit/test_functions_examples.py runs them).
-- setup: CREATE DATABASE db
-- setup: CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'changelog-producer' = 'input')
-- setup: INSERT INTO db.t VALUES (1, 'a'), (2, 'b')
-- setup: CALL sys.create_tag('db.t', 'v1', 1)
-- setup: INSERT INTO db.t VALUES (2, 'B'), (3, 'c')
-- setup: DELETE FROM db.t WHERE id = 1
-- setup: CALL sys.create_tag('db.t', 'v3', 3)

-- name: paimon_changes
-- signature: paimon_changes(table_name VARCHAR, start_at VARCHAR, end_at VARCHAR, mode := VARCHAR) -> TABLE(rowkind VARCHAR, <the columns of the table>)
-- doc: The changes of a Paimon table ('db.table') after start_at up to end_at: two snapshot ids, two tags
-- doc: (always a diff of their snapshots, as in Paimon), or two timestamps ('YYYY-MM-DD HH:MM:SS', local time).
-- doc: rowkind is '+I', '-U', '+U' or '-D'. mode is Paimon's 'incremental-between-scan-mode': 'auto' (the
-- doc: changelog files when the table has a changelog producer, else the delta files), 'delta' (the records the
-- doc: commits in between wrote, as written), 'changelog' (their changelog files) or 'diff' (the table at end_at
-- doc: against the table at start_at, per key: '+I' new, '-D' gone, '-U'/'+U' the old and the new row). Streamed.
-- example: SELECT rowkind, id FROM paimon_changes('db.pk_changelog_input', 1, 3) ORDER BY id
-- expect: [('+I', 1), ('+I', 2), ('+I', 3)]
-- try: SELECT * FROM paimon_changes('db.t', 1, 3) ORDER BY id, rowkind
-- gives: [('-D', 1, 'a'), ('+I', 2, 'B'), ('+I', 3, 'c')]
-- try: SELECT * FROM paimon_changes('db.t', 'v1', 'v3') ORDER BY id, rowkind DESC
-- gives: [('-D', 1, 'a'), ('-U', 2, 'b'), ('+U', 2, 'B'), ('+I', 3, 'c')]
CREATE OR REPLACE MACRO paimon_changes(table_name, start_at, end_at, mode := 'auto') AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_from, __paimon_to, __paimon_mode)
    FROM query_table(__paimon_changes_bind(table_name, CAST(start_at AS VARCHAR), CAST(end_at AS VARCHAR), mode))
    WHERE __paimon_table = table_name AND __paimon_from = CAST(start_at AS VARCHAR)
        AND __paimon_to = CAST(end_at AS VARCHAR) AND __paimon_mode = mode;
