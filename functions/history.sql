-- The history and definition of one table: the system tables "db"."t$snapshots", "t$tags", "t$schemas",
-- "t$options", "t$consumers" and "t$aggregation_fields", with Paimon's Java column names and types. Each call
-- re-reads the table's metadata, so a commit made since the last call shows up.
--
-- Examples that run anywhere: `-- setup:` builds a tiny warehouse (Paimon SQL, run by paimon_sql.connect on a
-- new temporary folder); each `-- try:` then runs on a plain DuckDB after install() and returns its `-- gives:`
-- (tests/unit/test_functions_examples.py runs them).
-- setup: CREATE DATABASE db
-- setup: CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')
-- setup: INSERT INTO db.t VALUES (1, 'a'), (2, 'b')
-- setup: INSERT INTO db.t VALUES (2, 'B')
-- setup: CALL sys.create_tag('db.t', 'v1', 1)
-- setup: ALTER TABLE db.t ADD COLUMN price DOUBLE
-- setup: CREATE TABLE db.agg (id INT NOT NULL, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')

-- name: paimon_snapshots
-- signature: paimon_snapshots(table_name VARCHAR) -> TABLE(snapshot_id BIGINT, schema_id BIGINT, commit_user VARCHAR, commit_identifier BIGINT, commit_kind VARCHAR, commit_time TIMESTAMP, base_manifest_list VARCHAR, delta_manifest_list VARCHAR, changelog_manifest_list VARCHAR, total_record_count BIGINT, delta_record_count BIGINT, changelog_record_count BIGINT, watermark BIGINT)
-- doc: Every snapshot the table keeps ("db"."t$snapshots"); commit_time is local wall-clock time.
-- example: SELECT snapshot_id, schema_id, commit_kind, total_record_count FROM paimon_snapshots('db.append_tags') ORDER BY 1
-- expect: [(1, 0, 'APPEND', 3), (2, 0, 'APPEND', 5), (3, 1, 'APPEND', 6)]
-- try: SELECT snapshot_id, schema_id, commit_kind, total_record_count, delta_record_count FROM paimon_snapshots('db.t') ORDER BY 1
-- gives: [(1, 0, 'APPEND', 2, 2), (2, 0, 'APPEND', 3, 1)]
CREATE OR REPLACE MACRO paimon_snapshots(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table) FROM __paimon_snapshots WHERE __paimon_table = table_name;

-- name: paimon_tags
-- signature: paimon_tags(table_name VARCHAR) -> TABLE(tag_name VARCHAR, snapshot_id BIGINT, schema_id BIGINT, commit_time TIMESTAMP, record_count BIGINT, create_time TIMESTAMP, time_retained VARCHAR)
-- doc: The table's tags and the snapshots they keep ("db"."t$tags").
-- example: SELECT tag_name, snapshot_id, record_count FROM paimon_tags('db.append_tags') ORDER BY 1
-- expect: [('tag1', 1, 3), ('tag2', 2, 5)]
-- try: SELECT tag_name, snapshot_id, record_count FROM paimon_tags('db.t')
-- gives: [('v1', 1, 2)]
CREATE OR REPLACE MACRO paimon_tags(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table) FROM __paimon_tags WHERE __paimon_table = table_name;

-- name: paimon_schemas
-- signature: paimon_schemas(table_name VARCHAR) -> TABLE(schema_id BIGINT, fields VARCHAR, partition_keys VARCHAR, primary_keys VARCHAR, options VARCHAR, comment VARCHAR, update_time TIMESTAMP)
-- doc: Every schema version of the table ("db"."t$schemas"); fields, keys and options are JSON text.
-- example: SELECT schema_id, primary_keys, partition_keys FROM paimon_schemas('db.pk_part_dv')
-- expect: [(0, '["id","dt"]', '["dt"]')]
-- try: SELECT schema_id, fields, primary_keys FROM paimon_schemas('db.t') ORDER BY 1
-- gives: [(0, '[{"id":0,"name":"id","type":"INT NOT NULL"},{"id":1,"name":"name","type":"STRING"}]', '["id"]'), (1, '[{"id":0,"name":"id","type":"INT NOT NULL"},{"id":1,"name":"name","type":"STRING"},{"id":2,"name":"price","type":"DOUBLE"}]', '["id"]')]
CREATE OR REPLACE MACRO paimon_schemas(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table) FROM __paimon_schemas WHERE __paimon_table = table_name;

-- name: paimon_options
-- signature: paimon_options(table_name VARCHAR) -> TABLE(key VARCHAR, value VARCHAR)
-- doc: The table's options in its latest schema ("db"."t$options").
-- example: SELECT key, value FROM paimon_options('db.pk_agg') ORDER BY key
-- expect: [('bucket', '1'), ('fields.name.aggregate-function', 'listagg'), ('fields.v.aggregate-function', 'sum'), ('merge-engine', 'aggregation')]
-- try: SELECT key, value FROM paimon_options('db.agg') ORDER BY key
-- gives: [('bucket', '1'), ('fields.v.aggregate-function', 'sum'), ('merge-engine', 'aggregation')]
CREATE OR REPLACE MACRO paimon_options(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table) FROM __paimon_options WHERE __paimon_table = table_name;

-- name: paimon_consumers
-- signature: paimon_consumers(table_name VARCHAR) -> TABLE(consumer_id VARCHAR, next_snapshot_id BIGINT)
-- doc: The streaming consumers recorded for the table and the snapshot each reads next ("db"."t$consumers").
-- example: SELECT count(*) FROM paimon_consumers('db.pk_agg')
-- expect: [(0,)]
-- try: SELECT count(*) FROM paimon_consumers('db.t')
-- gives: [(0,)]
CREATE OR REPLACE MACRO paimon_consumers(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table) FROM __paimon_consumers WHERE __paimon_table = table_name;

-- name: paimon_aggregation_fields
-- signature: paimon_aggregation_fields(table_name VARCHAR) -> TABLE(field_name VARCHAR, field_type VARCHAR, function VARCHAR, function_options VARCHAR, comment VARCHAR)
-- doc: Each column with its aggregate function and the options naming it ("db"."t$aggregation_fields").
-- example: SELECT field_name, function FROM paimon_aggregation_fields('db.pk_agg') ORDER BY 1
-- expect: [('id', '[]'), ('name', '[listagg]'), ('v', '[sum]')]
-- try: SELECT field_name, field_type, function FROM paimon_aggregation_fields('db.agg') ORDER BY 1
-- gives: [('id', 'INT NOT NULL', '[]'), ('v', 'BIGINT', '[sum]')]
CREATE OR REPLACE MACRO paimon_aggregation_fields(table_name) AS TABLE
    SELECT * EXCLUDE (__paimon_table) FROM __paimon_aggregation_fields WHERE __paimon_table = table_name;
