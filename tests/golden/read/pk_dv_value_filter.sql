-- title: deletion vectors: a value filter (planning keeps every file here; the SQL applies it)
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_scan_and_read_dv.pk_table_scan_and_read_dv WHERE f3 < 12
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
      "f2",
      "f3",
      "f1"
    FROM (
      SELECT
        *
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
            '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=10/bucket-0/data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet',
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
        "f3" < CAST(12 AS DOUBLE)
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
    UNION ALL
    SELECT
      "f0",
      "f2",
      "f3",
      "f1"
    FROM (
      SELECT
        *
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
            '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=10/bucket-0/data-f19db350-7c55-4686-8839-78d15aa17fc1-1.parquet',
            hive_partitioning = FALSE
          )
        )
      )
      WHERE
        "f3" < CAST(12 AS DOUBLE)
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
  )
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
      *
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
          '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=10/bucket-1/data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet',
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
      "f3" < CAST(12 AS DOUBLE)
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
      *
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
          '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=20/bucket-0/data-6922349a-83a3-4da3-995b-5a9e5b066710-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
    WHERE
      "f3" < CAST(12 AS DOUBLE)
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- inlined (plan_query)
SELECT
  *
FROM (
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
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=10/bucket-0/data-f19db350-7c55-4686-8839-78d15aa17fc1-1.parquet',
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=20/bucket-0/data-6922349a-83a3-4da3-995b-5a9e5b066710-0.parquet'
      ],
      hive_partitioning = FALSE
    )
  )
  UNION ALL
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
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=10/bucket-0/data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet',
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/f1=10/bucket-1/data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet'
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
