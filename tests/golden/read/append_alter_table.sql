-- title: append table with schema evolution: files read under their own schema
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM append_table_with_alter_table.append_table_with_alter_table
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("key0" AS INT) AS "key0",
  CAST("key1" AS INT) AS "key1",
  CAST("k" AS INT) AS "k",
  CAST("c" AS INT) AS "c",
  CAST("d" AS INT) AS "d",
  CAST("a" AS INT) AS "a",
  CAST("e" AS INT) AS "e"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "k",
      "c",
      "d",
      "a",
      "e",
      CAST(0 AS INT) AS "key0",
      CAST(1 AS INT) AS "key1"
    FROM (
      SELECT
        "k",
        "b" AS "c",
        CAST(NULL AS INT) AS "d",
        "d" AS "a",
        CAST(NULL AS INT) AS "e"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=0/key1=1/bucket-0/data-512651de-64b5-4a10-8068-65403aaccdb8-0.parquet',
        hive_partitioning = FALSE
      )
    )
    UNION ALL
    SELECT
      "k",
      "c",
      "d",
      "a",
      "e",
      CAST(0 AS INT) AS "key0",
      CAST(1 AS INT) AS "key1"
    FROM (
      SELECT
        "k",
        "c",
        "d",
        "a",
        "e"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=0/key1=1/bucket-0/data-1aaec161-5365-426f-b33d-3cd99a3908f2-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
);

-- split 1 (stream)
SELECT
  CAST("key0" AS INT) AS "key0",
  CAST("key1" AS INT) AS "key1",
  CAST("k" AS INT) AS "k",
  CAST("c" AS INT) AS "c",
  CAST("d" AS INT) AS "d",
  CAST("a" AS INT) AS "a",
  CAST("e" AS INT) AS "e"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "k",
      "c",
      "d",
      "a",
      "e",
      CAST(1 AS INT) AS "key0",
      CAST(1 AS INT) AS "key1"
    FROM (
      SELECT
        "k",
        "b" AS "c",
        CAST(NULL AS INT) AS "d",
        "d" AS "a",
        CAST(NULL AS INT) AS "e"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=1/key1=1/bucket-0/data-9dfb749f-0509-4db2-ae7b-1e4448b32165-0.parquet',
        hive_partitioning = FALSE
      )
    )
    UNION ALL
    SELECT
      "k",
      "c",
      "d",
      "a",
      "e",
      CAST(1 AS INT) AS "key0",
      CAST(1 AS INT) AS "key1"
    FROM (
      SELECT
        "k",
        "c",
        "d",
        "a",
        "e"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=1/key1=1/bucket-0/data-11b12094-192f-4ad8-92a8-ae8cba5e25ef-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
);

-- inlined (plan_query)
SELECT
  *
FROM (
  SELECT
    CAST("key0" AS INT) AS "key0",
    CAST("key1" AS INT) AS "key1",
    CAST("k" AS INT) AS "k",
    CAST("c" AS INT) AS "c",
    CAST("d" AS INT) AS "d",
    CAST("a" AS INT) AS "a",
    CAST("e" AS INT) AS "e"
  FROM (
    SELECT
      "key0",
      "key1",
      "k",
      "b" AS "c",
      CAST(NULL AS INT) AS "d",
      "d" AS "a",
      CAST(NULL AS INT) AS "e"
    FROM READ_PARQUET(
      [
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=0/key1=1/bucket-0/data-512651de-64b5-4a10-8068-65403aaccdb8-0.parquet',
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=1/key1=1/bucket-0/data-9dfb749f-0509-4db2-ae7b-1e4448b32165-0.parquet'
      ],
      hive_partitioning = FALSE
    )
  )
  UNION ALL
  SELECT
    CAST("key0" AS INT) AS "key0",
    CAST("key1" AS INT) AS "key1",
    CAST("k" AS INT) AS "k",
    CAST("c" AS INT) AS "c",
    CAST("d" AS INT) AS "d",
    CAST("a" AS INT) AS "a",
    CAST("e" AS INT) AS "e"
  FROM (
    SELECT
      "key0",
      "key1",
      "k",
      "c",
      "d",
      "a",
      "e"
    FROM READ_PARQUET(
      [
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=0/key1=1/bucket-0/data-1aaec161-5365-426f-b33d-3cd99a3908f2-0.parquet',
        '<fixtures>/paimon-cpp/test/test_data/parquet/append_table_with_alter_table.db/append_table_with_alter_table/key0=1/key1=1/bucket-0/data-11b12094-192f-4ad8-92a8-ae8cba5e25ef-0.parquet'
      ],
      hive_partitioning = FALSE
    )
  )
);
