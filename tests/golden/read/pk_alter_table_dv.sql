-- title: schema evolution (rename, reorder, add, type change) with deletion vectors
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_with_alter_table.pk_table_with_alter_table
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("key1" AS INT) AS "key1",
  CAST("k" AS TEXT) AS "k",
  CAST("key_2" AS INT) AS "key_2",
  CAST("c" AS INT) AS "c",
  CAST("d" AS INT) AS "d",
  CAST("a" AS INT) AS "a",
  CAST("key0" AS INT) AS "key0",
  CAST("e" AS INT) AS "e"
FROM (
  SELECT
    "k",
    "key_2",
    "c",
    "d",
    "a",
    "e",
    "key0",
    "key1"
  FROM (
    SELECT
      "k",
      "key_2",
      "c",
      "d",
      "a",
      "e",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST(0 AS INT) AS "key0",
      CAST(1 AS INT) AS "key1"
    FROM (
      SELECT
        "k",
        "key_2",
        "c",
        "d",
        "a",
        "e",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table/key0=0/key1=1/bucket-0/data-d7a33230-223e-4d65-8e39-bc7ed26bdd32-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- split 1 (stream)
SELECT
  CAST("key1" AS INT) AS "key1",
  CAST("k" AS TEXT) AS "k",
  CAST("key_2" AS INT) AS "key_2",
  CAST("c" AS INT) AS "c",
  CAST("d" AS INT) AS "d",
  CAST("a" AS INT) AS "a",
  CAST("key0" AS INT) AS "key0",
  CAST("e" AS INT) AS "e"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "k",
      "key_2",
      "c",
      "d",
      "a",
      "e",
      "key0",
      "key1"
    FROM (
      SELECT
        "k",
        "key_2",
        "c",
        "d",
        "a",
        "e",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
        CAST(1 AS INT) AS "key0",
        CAST(1 AS INT) AS "key1"
      FROM (
        SELECT
          "k",
          "key2" AS "key_2",
          "b" AS "c",
          CAST(NULL AS INT) AS "d",
          "d" AS "a",
          CAST(NULL AS INT) AS "e",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table/key0=1/key1=1/bucket-0/data-8969384c-d715-4113-b663-2248c9a8c8d9-0.parquet',
          hive_partitioning = FALSE,
          file_row_number = TRUE
        )
        WHERE
          NOT "file_row_number" IN (
            SELECT
              "pos"
            FROM "__paimon_dv_0"
          )
      )
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
    UNION ALL
    SELECT
      "k",
      "key_2",
      "c",
      "d",
      "a",
      "e",
      "key0",
      "key1"
    FROM (
      SELECT
        "k",
        "key_2",
        "c",
        "d",
        "a",
        "e",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
        CAST(1 AS INT) AS "key0",
        CAST(1 AS INT) AS "key1"
      FROM (
        SELECT
          "k",
          "key_2",
          "c",
          "d",
          "a",
          "e",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table/key0=1/key1=1/bucket-0/data-f2f38e80-7d28-4d51-90b3-c28951e5cdc0-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
  )
);

-- inlined (plan_query)
SELECT
  *
FROM (
  SELECT
    CAST("key1" AS INT) AS "key1",
    CAST("k" AS TEXT) AS "k",
    CAST("key_2" AS INT) AS "key_2",
    CAST("c" AS INT) AS "c",
    CAST("d" AS INT) AS "d",
    CAST("a" AS INT) AS "a",
    CAST("key0" AS INT) AS "key0",
    CAST("e" AS INT) AS "e"
  FROM (
    SELECT
      "key1",
      "k",
      "key_2",
      "c",
      "d",
      "a",
      "key0",
      "e"
    FROM READ_PARQUET(
      [
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table/key0=0/key1=1/bucket-0/data-d7a33230-223e-4d65-8e39-bc7ed26bdd32-0.parquet',
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table/key0=1/key1=1/bucket-0/data-f2f38e80-7d28-4d51-90b3-c28951e5cdc0-0.parquet'
      ],
      hive_partitioning = FALSE
    )
  )
  UNION ALL
  SELECT
    CAST("key1" AS INT) AS "key1",
    CAST("k" AS TEXT) AS "k",
    CAST("key_2" AS INT) AS "key_2",
    CAST("c" AS INT) AS "c",
    CAST("d" AS INT) AS "d",
    CAST("a" AS INT) AS "a",
    CAST("key0" AS INT) AS "key0",
    CAST("e" AS INT) AS "e"
  FROM (
    SELECT
      "key1",
      "k",
      "key2" AS "key_2",
      "b" AS "c",
      CAST(NULL AS INT) AS "d",
      "d" AS "a",
      "key0",
      CAST(NULL AS INT) AS "e"
    FROM READ_PARQUET(
      [
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table/key0=1/key1=1/bucket-0/data-8969384c-d715-4113-b663-2248c9a8c8d9-0.parquet'
      ],
      hive_partitioning = FALSE
    )
    CROSS JOIN (
      SELECT
        CAST("__paimon_dv" AS BIT[]) AS "__paimon_dv"
      FROM "__paimon_deleted_1"
    )
    WHERE
      GET_BIT(
        LIST_EXTRACT("__paimon_dv", CAST("file_index" + 1 AS BIGINT)),
        CAST("file_row_number" AS INT)
      ) = 0
  )
);
