-- title: first-row: level-0 files hidden, value statistics may prune
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_scan_and_read_first_row.pk_table_scan_and_read_first_row WHERE f3 > 15
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("f0" AS TEXT) AS "f0",
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DOUBLE) AS "f3"
FROM (
  SELECT
    "f0",
    "f2",
    "f3",
    "f1"
  FROM (
    SELECT
      "f0",
      "f2",
      "f3",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST(10 AS INT) AS "f1"
    FROM (
      SELECT
        "f0",
        "f2",
        "f3",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row/f1=10/bucket-0/data-31f1f5a8-0430-4222-9738-31b0b06c13e2-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
)
WHERE
  "f3" > CAST(15 AS DOUBLE);

-- split 1 (stream)
SELECT
  CAST("f0" AS TEXT) AS "f0",
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DOUBLE) AS "f3"
FROM (
  SELECT
    "f0",
    "f2",
    "f3",
    "f1"
  FROM (
    SELECT
      "f0",
      "f2",
      "f3",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST(10 AS INT) AS "f1"
    FROM (
      SELECT
        "f0",
        "f2",
        "f3",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row/f1=10/bucket-1/data-75c43887-c54f-42e4-874a-fccbafd9fa5f-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
)
WHERE
  "f3" > CAST(15 AS DOUBLE);

-- split 2 (stream)
SELECT
  CAST("f0" AS TEXT) AS "f0",
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DOUBLE) AS "f3"
FROM (
  SELECT
    "f0",
    "f2",
    "f3",
    "f1"
  FROM (
    SELECT
      "f0",
      "f2",
      "f3",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST(20 AS INT) AS "f1"
    FROM (
      SELECT
        "f0",
        "f2",
        "f3",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row/f1=20/bucket-0/data-ac4292dc-854d-42fa-ae99-f6aeb566530d-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
)
WHERE
  "f3" > CAST(15 AS DOUBLE);

-- inlined (plan_query)
SELECT
  CAST("f0" AS TEXT) AS "f0",
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DOUBLE) AS "f3"
FROM (
  SELECT
    "f0",
    "f1",
    "f2",
    "f3"
  FROM READ_PARQUET(
    [
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row/f1=10/bucket-0/data-31f1f5a8-0430-4222-9738-31b0b06c13e2-0.parquet',
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row/f1=10/bucket-1/data-75c43887-c54f-42e4-874a-fccbafd9fa5f-0.parquet',
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row/f1=20/bucket-0/data-ac4292dc-854d-42fa-ae99-f6aeb566530d-0.parquet'
    ],
    hive_partitioning = FALSE
  )
);
