-- title: Paimon 0.9 layout, DV, 2 buckets: the bucket-key filter prunes a bucket
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_09.pk_09 WHERE f2 = 0
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
          '<fixtures>/paimon-cpp/test/test_data/parquet/pk_09.db/pk_09/f1=10/bucket-1/data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet',
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
      "f2" = CAST(0 AS INT)
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
      '<fixtures>/paimon-cpp/test/test_data/parquet/pk_09.db/pk_09/f1=10/bucket-1/data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet'
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
);
