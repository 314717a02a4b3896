-- title: time travel to snapshot 1 (its own schema)
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor
-- snapshot: 1
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
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-0/data-dad09a29-e5ad-43d5-86e6-a1706e5c9ad7-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

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
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-3a6000ce-0611-462e-8a99-f3cb28aa6f08-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

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
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=20/bucket-0/data-7c66dfe2-bec3-4fc2-a952-2d17d6ae91bb-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
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
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-0/data-dad09a29-e5ad-43d5-86e6-a1706e5c9ad7-0.parquet',
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-3a6000ce-0611-462e-8a99-f3cb28aa6f08-0.parquet',
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=20/bucket-0/data-7c66dfe2-bec3-4fc2-a952-2d17d6ae91bb-0.parquet'
    ],
    hive_partitioning = FALSE
  )
);
