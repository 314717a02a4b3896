-- title: append table with complex types and a filter above the scan
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM append_complex_data.append_complex_data WHERE f1 IS NOT NULL
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DATE) AS "f3",
  CAST("f4" AS TIMESTAMP_NS) AS "f4",
  CAST("f5" AS DECIMAL(23, 5)) AS "f5",
  CAST("f6" AS BLOB) AS "f6"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "f2",
      "f3",
      "f4",
      "f5",
      "f6",
      CAST(10 AS INT) AS "f1"
    FROM (
      SELECT
        "f2",
        "f3",
        "f4",
        "f5",
        "f6"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_complex_data.db/append_complex_data/f1=10/bucket-0/data-f8754699-0c43-4e53-be00-7e8af1754913-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    NOT "f1" IS NULL
);

-- split 1 (stream)
SELECT
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DATE) AS "f3",
  CAST("f4" AS TIMESTAMP_NS) AS "f4",
  CAST("f5" AS DECIMAL(23, 5)) AS "f5",
  CAST("f6" AS BLOB) AS "f6"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "f2",
      "f3",
      "f4",
      "f5",
      "f6",
      CAST(20 AS INT) AS "f1"
    FROM (
      SELECT
        "f2",
        "f3",
        "f4",
        "f5",
        "f6"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_complex_data.db/append_complex_data/f1=20/bucket-0/data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    NOT "f1" IS NULL
);

-- split 2 (stream)
SELECT
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DATE) AS "f3",
  CAST("f4" AS TIMESTAMP_NS) AS "f4",
  CAST("f5" AS DECIMAL(23, 5)) AS "f5",
  CAST("f6" AS BLOB) AS "f6"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "f2",
      "f3",
      "f4",
      "f5",
      "f6",
      CAST(20 AS INT) AS "f1"
    FROM (
      SELECT
        "f2",
        "f3",
        "f4",
        "f5",
        "f6"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_complex_data.db/append_complex_data/f1=20/bucket-1/data-e0a6a424-e3b0-47ba-b259-d033fc01e87c-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    NOT "f1" IS NULL
);

-- inlined (plan_query)
SELECT
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DATE) AS "f3",
  CAST("f4" AS TIMESTAMP_NS) AS "f4",
  CAST("f5" AS DECIMAL(23, 5)) AS "f5",
  CAST("f6" AS BLOB) AS "f6"
FROM (
  SELECT
    "f1",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6"
  FROM READ_PARQUET(
    [
      '<fixtures>/paimon-cpp/test/test_data/parquet/append_complex_data.db/append_complex_data/f1=10/bucket-0/data-f8754699-0c43-4e53-be00-7e8af1754913-0.parquet',
      '<fixtures>/paimon-cpp/test/test_data/parquet/append_complex_data.db/append_complex_data/f1=20/bucket-0/data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet',
      '<fixtures>/paimon-cpp/test/test_data/parquet/append_complex_data.db/append_complex_data/f1=20/bucket-1/data-e0a6a424-e3b0-47ba-b259-d033fc01e87c-0.parquet'
    ],
    hive_partitioning = FALSE
  )
);
