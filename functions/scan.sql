-- name: paimon_scan
-- signature: paimon_scan(table_name VARCHAR) -> TABLE
-- doc: The rows of a Paimon table ('db.table') at its latest snapshot: merged on read for primary-key
-- doc: tables, deletion vectors applied, columns mapped across schema evolution. Filters and projections
-- doc: on the result are pushed into planning (partition, bucket and statistics pruning).
-- example: SELECT id, name FROM paimon_scan('db.pk_dedup') WHERE id <= 2 ORDER BY id
-- expect: [(1, 'a2'), (2, None)]
CREATE OR REPLACE MACRO paimon_scan(table_name) AS TABLE
    SELECT * FROM query_table(table_name);
