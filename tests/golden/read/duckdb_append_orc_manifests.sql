-- title: append table with ORC manifests (written by paimon-cpp)
-- warehouse: <fixtures>/duckdb-paimon/data
-- query: SELECT * FROM testdb.testtbl
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("f0" AS TEXT) AS "f0",
  CAST("f1" AS INT) AS "f1",
  CAST("f2" AS INT) AS "f2",
  CAST("f3" AS DOUBLE) AS "f3"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "f0",
      "f1",
      "f2",
      "f3"
    FROM READ_PARQUET(
      '<fixtures>/duckdb-paimon/data/testdb.db/testtbl/bucket-0/data-2b396f2e-0f43-4627-bad5-658fdb744d8b-0.parquet',
      hive_partitioning = FALSE
    )
    UNION ALL
    SELECT
      "f0",
      "f1",
      "f2",
      "f3"
    FROM READ_PARQUET(
      '<fixtures>/duckdb-paimon/data/testdb.db/testtbl/bucket-0/data-428fb611-e1e7-4edb-b7bf-8194c20df01e-0.parquet',
      hive_partitioning = FALSE
    )
    UNION ALL
    SELECT
      "f0",
      "f1",
      "f2",
      "f3"
    FROM READ_PARQUET(
      '<fixtures>/duckdb-paimon/data/testdb.db/testtbl/bucket-0/data-e09f61dc-9858-41df-bcb7-8019316aa740-0.parquet',
      hive_partitioning = FALSE
    )
  )
);

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
      '<fixtures>/duckdb-paimon/data/testdb.db/testtbl/bucket-0/data-2b396f2e-0f43-4627-bad5-658fdb744d8b-0.parquet',
      '<fixtures>/duckdb-paimon/data/testdb.db/testtbl/bucket-0/data-428fb611-e1e7-4edb-b7bf-8194c20df01e-0.parquet',
      '<fixtures>/duckdb-paimon/data/testdb.db/testtbl/bucket-0/data-e09f61dc-9858-41df-bcb7-8019316aa740-0.parquet'
    ],
    hive_partitioning = FALSE
  )
);
