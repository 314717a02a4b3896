-- What a snapshot of one table is made of: the system tables "db"."t$files", "t$manifests",
-- "t$partitions", "t$buckets" and "t$table_indexes", with Paimon's Java column names and types. `snapshot := n`
-- or `tag := 'name'` reads that snapshot (like `VERSION AS OF` in a session); without them, the latest snapshot
-- at each call.
--
-- Examples that run anywhere: `-- setup:` builds a tiny warehouse (Paimon SQL, run by paimon_sql.connect on a
-- new temporary folder); each `-- try:` then runs on a plain DuckDB after install() and returns its `-- gives:`
-- (tests/unit/test_functions_examples.py runs them).
-- setup: CREATE DATABASE db
-- setup: CREATE TABLE db.t (id INT NOT NULL, dt STRING NOT NULL, v INT, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')
-- setup: INSERT INTO db.t VALUES (1, '2024-01-01', 10), (2, '2024-01-02', 20), (3, '2024-01-02', 30)
-- setup: INSERT INTO db.t VALUES (2, '2024-01-02', 21)
-- setup: CALL sys.create_tag('db.t', 'v1', 1)
-- setup: CREATE TABLE db.dv (id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')
-- setup: INSERT INTO db.dv VALUES (1, 1), (2, 2)
-- setup: INSERT INTO db.dv VALUES (2, 3)

-- name: paimon_files
-- signature: paimon_files(table_name VARCHAR, snapshot := BIGINT, tag := VARCHAR) -> TABLE(partition VARCHAR, bucket INTEGER, file_path VARCHAR, file_format VARCHAR, schema_id BIGINT, level INTEGER, record_count BIGINT, file_size_in_bytes BIGINT, min_key VARCHAR, max_key VARCHAR, null_value_counts VARCHAR, min_value_stats VARCHAR, max_value_stats VARCHAR, min_sequence_number BIGINT, max_sequence_number BIGINT, creation_time TIMESTAMP)
-- doc: The live data files of a snapshot with their statistics ("db"."t$files").
-- example: SELECT partition, bucket, level, record_count FROM paimon_files('db.pk_part_dv', snapshot := 2) ORDER BY ALL
-- expect: [('[2024-01-01]', 0, 5, 1), ('[2024-01-02]', 0, 5, 1)]
-- try: SELECT partition, bucket, level, record_count FROM paimon_files('db.t', snapshot := 1) ORDER BY ALL
-- gives: [('[2024-01-01]', 0, 0, 1), ('[2024-01-02]', 0, 0, 1), ('[2024-01-02]', 1, 0, 1)]
CREATE OR REPLACE MACRO paimon_files(table_name, snapshot := NULL, tag := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_snapshot, __paimon_tag) FROM __paimon_files
    WHERE __paimon_table = table_name
        AND CASE WHEN snapshot IS NULL THEN __paimon_snapshot IS NULL ELSE __paimon_snapshot = snapshot END
        AND CASE WHEN tag IS NULL THEN __paimon_tag IS NULL ELSE __paimon_tag = tag END;

-- name: paimon_manifests
-- signature: paimon_manifests(table_name VARCHAR, snapshot := BIGINT, tag := VARCHAR) -> TABLE(file_name VARCHAR, file_size BIGINT, num_added_files BIGINT, num_deleted_files BIGINT, schema_id BIGINT)
-- doc: The manifest files of a snapshot, base then delta ("db"."t$manifests").
-- example: SELECT num_added_files, num_deleted_files FROM paimon_manifests('db.pk_part_dv') ORDER BY ALL
-- expect: [(2, 0), (2, 0), (2, 2), (2, 3)]
-- try: SELECT num_added_files, num_deleted_files FROM paimon_manifests('db.t') ORDER BY ALL
-- gives: [(1, 0), (3, 0)]
CREATE OR REPLACE MACRO paimon_manifests(table_name, snapshot := NULL, tag := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_snapshot, __paimon_tag) FROM __paimon_manifests
    WHERE __paimon_table = table_name
        AND CASE WHEN snapshot IS NULL THEN __paimon_snapshot IS NULL ELSE __paimon_snapshot = snapshot END
        AND CASE WHEN tag IS NULL THEN __paimon_tag IS NULL ELSE __paimon_tag = tag END;

-- name: paimon_partitions
-- signature: paimon_partitions(table_name VARCHAR, snapshot := BIGINT, tag := VARCHAR) -> TABLE(partition VARCHAR, record_count BIGINT, file_size_in_bytes BIGINT, file_count BIGINT, last_update_time TIMESTAMP)
-- doc: Record, file and byte counts per partition of a snapshot ("db"."t$partitions").
-- example: SELECT partition, record_count, file_count FROM paimon_partitions('db.pk_part_dv') ORDER BY 1
-- expect: [('[2024-01-01]', 1, 1), ('[2024-01-02]', 2, 2)]
-- example: SELECT sum(record_count) FROM paimon_partitions('db.append_tags', tag := 'tag1')
-- expect: [(3,)]
-- try: SELECT partition, record_count, file_count FROM paimon_partitions('db.t') ORDER BY ALL
-- gives: [('[2024-01-01]', 1, 1), ('[2024-01-02]', 3, 3)]
-- try: SELECT partition, record_count, file_count FROM paimon_partitions('db.t', tag := 'v1') ORDER BY ALL
-- gives: [('[2024-01-01]', 1, 1), ('[2024-01-02]', 2, 2)]
CREATE OR REPLACE MACRO paimon_partitions(table_name, snapshot := NULL, tag := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_snapshot, __paimon_tag) FROM __paimon_partitions
    WHERE __paimon_table = table_name
        AND CASE WHEN snapshot IS NULL THEN __paimon_snapshot IS NULL ELSE __paimon_snapshot = snapshot END
        AND CASE WHEN tag IS NULL THEN __paimon_tag IS NULL ELSE __paimon_tag = tag END;

-- name: paimon_buckets
-- signature: paimon_buckets(table_name VARCHAR, snapshot := BIGINT, tag := VARCHAR) -> TABLE(partition VARCHAR, bucket INTEGER, record_count BIGINT, file_size_in_bytes BIGINT, file_count BIGINT, last_update_time TIMESTAMP)
-- doc: Record, file and byte counts per bucket of a snapshot ("db"."t$buckets").
-- example: SELECT partition, bucket, record_count, file_count FROM paimon_buckets('db.pk_orc_2b') ORDER BY ALL
-- expect: [('[]', 0, 5, 3), ('[]', 1, 1, 1)]
-- try: SELECT partition, bucket, record_count, file_count FROM paimon_buckets('db.t') ORDER BY ALL
-- gives: [('[2024-01-01]', 0, 1, 1), ('[2024-01-02]', 0, 2, 2), ('[2024-01-02]', 1, 1, 1)]
CREATE OR REPLACE MACRO paimon_buckets(table_name, snapshot := NULL, tag := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_snapshot, __paimon_tag) FROM __paimon_buckets
    WHERE __paimon_table = table_name
        AND CASE WHEN snapshot IS NULL THEN __paimon_snapshot IS NULL ELSE __paimon_snapshot = snapshot END
        AND CASE WHEN tag IS NULL THEN __paimon_tag IS NULL ELSE __paimon_tag = tag END;

-- name: paimon_table_indexes
-- signature: paimon_table_indexes(table_name VARCHAR, snapshot := BIGINT, tag := VARCHAR) -> TABLE(partition VARCHAR, bucket INTEGER, index_type VARCHAR, file_name VARCHAR, file_size BIGINT, row_count BIGINT, dv_ranges STRUCT(f0 VARCHAR, f1 INTEGER, f2 INTEGER, _CARDINALITY BIGINT)[])
-- doc: The index files of a snapshot (deletion vectors, hash indexes) ("db"."t$table_indexes").
-- example: SELECT index_type, count(*) FROM paimon_table_indexes('db.pk_dv') GROUP BY ALL
-- expect: [('DELETION_VECTORS', 1)]
-- try: SELECT index_type, bucket, row_count FROM paimon_table_indexes('db.dv') ORDER BY ALL
-- gives: [('DELETION_VECTORS', 0, 1)]
CREATE OR REPLACE MACRO paimon_table_indexes(table_name, snapshot := NULL, tag := NULL) AS TABLE
    SELECT * EXCLUDE (__paimon_table, __paimon_snapshot, __paimon_tag) FROM __paimon_table_indexes
    WHERE __paimon_table = table_name
        AND CASE WHEN snapshot IS NULL THEN __paimon_snapshot IS NULL ELSE __paimon_snapshot = snapshot END
        AND CASE WHEN tag IS NULL THEN __paimon_tag IS NULL ELSE __paimon_tag = tag END;
