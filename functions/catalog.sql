-- The whole warehouse: the global system tables sys.tables, sys.partitions and sys.all_table_options,
-- rebuilt at each call (tables created since install() included).
--
-- Examples that run anywhere: `-- setup:` builds a tiny warehouse (Paimon SQL, run by paimon_sql.connect on a
-- new temporary folder); each `-- try:` then runs on a plain DuckDB after install() and returns its `-- gives:`
-- (tests/unit/test_functions_examples.py runs them).
-- setup: CREATE DATABASE db
-- setup: CREATE TABLE db.t (id INT NOT NULL, dt STRING NOT NULL, v INT, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '1')
-- setup: INSERT INTO db.t VALUES (1, '2024-01-01', 10), (2, '2024-01-02', 20), (3, '2024-01-02', 30)
-- setup: CREATE TABLE db.log (msg STRING)

-- name: paimon_tables
-- signature: paimon_tables() -> TABLE(database_name VARCHAR, table_name VARCHAR, table_type VARCHAR, partitioned BOOLEAN, primary_key BOOLEAN, owner VARCHAR, created_at BIGINT, created_by VARCHAR, updated_at BIGINT, updated_by VARCHAR, record_count BIGINT, file_size_in_bytes BIGINT, file_count BIGINT, last_file_creation_time BIGINT)
-- doc: Every table of every database (sys.tables).
-- example: SELECT database_name, table_name, partitioned, primary_key FROM paimon_tables() ORDER BY ALL LIMIT 2
-- expect: [('db', 'append_tags', False, False), ('db', 'pk_agg', False, True)]
-- try: SELECT database_name, table_name, partitioned, primary_key FROM paimon_tables() ORDER BY ALL
-- gives: [('db', 'log', False, False), ('db', 't', True, True)]
CREATE OR REPLACE MACRO paimon_tables() AS TABLE
    SELECT * FROM __paimon_sys_tables;

-- name: paimon_all_partitions
-- signature: paimon_all_partitions() -> TABLE(database_name VARCHAR, table_name VARCHAR, partition_name VARCHAR, recordCount BIGINT, fileSizeInBytes BIGINT, fileCount BIGINT, lastFileCreationTime BIGINT, done BOOLEAN)
-- doc: Every partition of every partitioned table at its latest snapshot (sys.partitions).
-- example: SELECT table_name, partition_name, recordCount FROM paimon_all_partitions() ORDER BY ALL
-- expect: [('pk_part_dv', 'dt=2024-01-01', 1), ('pk_part_dv', 'dt=2024-01-02', 2)]
-- try: SELECT table_name, partition_name, recordCount, fileCount FROM paimon_all_partitions() ORDER BY ALL
-- gives: [('t', 'dt=2024-01-01', 1, 1), ('t', 'dt=2024-01-02', 2, 1)]
CREATE OR REPLACE MACRO paimon_all_partitions() AS TABLE
    SELECT * FROM __paimon_sys_partitions;

-- name: paimon_all_table_options
-- signature: paimon_all_table_options() -> TABLE(database_name VARCHAR, table_name VARCHAR, key VARCHAR, value VARCHAR)
-- doc: Every option of every table (sys.all_table_options).
-- example: SELECT key, value FROM paimon_all_table_options() WHERE table_name = 'pk_agg' ORDER BY key
-- expect: [('bucket', '1'), ('fields.name.aggregate-function', 'listagg'), ('fields.v.aggregate-function', 'sum'), ('merge-engine', 'aggregation')]
-- try: SELECT table_name, key, value FROM paimon_all_table_options() ORDER BY ALL
-- gives: [('t', 'bucket', '1')]
CREATE OR REPLACE MACRO paimon_all_table_options() AS TABLE
    SELECT * FROM __paimon_sys_all_table_options;
