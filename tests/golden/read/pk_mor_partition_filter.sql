-- title: partition filter prunes partitions; the key filter goes below the merge
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_with_mor.pk_table_with_mor WHERE p0 = 0 AND p1 = 1 AND k0 >= 0
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("k1" AS INT) AS "k1",
  CAST("k0" AS INT) AS "k0",
  CAST("p0" AS INT) AS "p0",
  CAST("p1" AS INT) AS "p1",
  CAST("s1" AS TEXT) AS "s1",
  CAST("s0" AS BLOB) AS "s0",
  CAST("v0" AS INT) AS "v0",
  CAST("v1" AS TEXT) AS "v1",
  CAST("v2" AS INT) AS "v2"
FROM (
  SELECT
    "k1",
    "k0",
    "s1",
    "s0",
    "v0",
    "v1",
    "v2",
    "p0",
    "p1"
  FROM (
    SELECT
      *
    FROM (
      SELECT
        *
      FROM (
        SELECT
          *
        FROM (
          SELECT
            "k1",
            "k0",
            "s1",
            "s0",
            "v0",
            "v1",
            "v2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(0 AS INT) AS "p0",
            CAST(1 AS INT) AS "p1"
          FROM (
            SELECT
              "k0" AS "k1",
              "k1" AS "k0",
              "s0" AS "s1",
              ENCODE("s1") AS "s0",
              CAST(CASE
                WHEN ISNAN("v0")
                THEN 0
                WHEN "v0" >= 2147483648.0
                THEN 2147483647
                WHEN "v0" <= -2147483648.0
                THEN -2147483648
                ELSE CAST(TRUNC("v0") AS BIGINT)
              END AS INT) AS "v0",
              CAST("v1" AS TEXT) AS "v1",
              CAST(NULL AS INT) AS "v2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_mor.db/pk_table_with_mor/p0=0/p1=1/bucket-0/data-24f8588c-d950-4e44-9d99-a023ea65a136-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "p0" = CAST(0 AS INT) AND "p1" = CAST(1 AS INT) AND "k0" >= CAST(0 AS INT)
        UNION ALL
        SELECT
          *
        FROM (
          SELECT
            "k1",
            "k0",
            "s1",
            "s0",
            "v0",
            "v1",
            "v2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(0 AS INT) AS "p0",
            CAST(1 AS INT) AS "p1"
          FROM (
            SELECT
              "k0" AS "k1",
              "k1" AS "k0",
              "s0" AS "s1",
              ENCODE("s1") AS "s0",
              CAST(CASE
                WHEN ISNAN("v0")
                THEN 0
                WHEN "v0" >= 2147483648.0
                THEN 2147483647
                WHEN "v0" <= -2147483648.0
                THEN -2147483648
                ELSE CAST(TRUNC("v0") AS BIGINT)
              END AS INT) AS "v0",
              CAST("v1" AS TEXT) AS "v1",
              CAST(NULL AS INT) AS "v2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_mor.db/pk_table_with_mor/p0=0/p1=1/bucket-0/data-24f8588c-d950-4e44-9d99-a023ea65a136-1.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "p0" = CAST(0 AS INT) AND "p1" = CAST(1 AS INT) AND "k0" >= CAST(0 AS INT)
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "k1", "k0"
        ORDER BY "s0" DESC, "s1" DESC, "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- inlined (plan_query)
SELECT
  CAST("k1" AS INT) AS "k1",
  CAST("k0" AS INT) AS "k0",
  CAST("p0" AS INT) AS "p0",
  CAST("p1" AS INT) AS "p1",
  CAST("s1" AS TEXT) AS "s1",
  CAST("s0" AS BLOB) AS "s0",
  CAST("v0" AS INT) AS "v0",
  CAST("v1" AS TEXT) AS "v1",
  CAST("v2" AS INT) AS "v2"
FROM (
  SELECT
    "k1",
    "k0",
    "s1",
    "s0",
    "v0",
    "v1",
    "v2",
    "p0",
    "p1"
  FROM (
    SELECT
      *
    FROM (
      SELECT
        *
      FROM (
        SELECT
          *
        FROM (
          SELECT
            "k1",
            "k0",
            "s1",
            "s0",
            "v0",
            "v1",
            "v2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(0 AS INT) AS "p0",
            CAST(1 AS INT) AS "p1"
          FROM (
            SELECT
              "k0" AS "k1",
              "k1" AS "k0",
              "s0" AS "s1",
              ENCODE("s1") AS "s0",
              CAST(CASE
                WHEN ISNAN("v0")
                THEN 0
                WHEN "v0" >= 2147483648.0
                THEN 2147483647
                WHEN "v0" <= -2147483648.0
                THEN -2147483648
                ELSE CAST(TRUNC("v0") AS BIGINT)
              END AS INT) AS "v0",
              CAST("v1" AS TEXT) AS "v1",
              CAST(NULL AS INT) AS "v2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_mor.db/pk_table_with_mor/p0=0/p1=1/bucket-0/data-24f8588c-d950-4e44-9d99-a023ea65a136-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "p0" = CAST(0 AS INT) AND "p1" = CAST(1 AS INT) AND "k0" >= CAST(0 AS INT)
        UNION ALL
        SELECT
          *
        FROM (
          SELECT
            "k1",
            "k0",
            "s1",
            "s0",
            "v0",
            "v1",
            "v2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(0 AS INT) AS "p0",
            CAST(1 AS INT) AS "p1"
          FROM (
            SELECT
              "k0" AS "k1",
              "k1" AS "k0",
              "s0" AS "s1",
              ENCODE("s1") AS "s0",
              CAST(CASE
                WHEN ISNAN("v0")
                THEN 0
                WHEN "v0" >= 2147483648.0
                THEN 2147483647
                WHEN "v0" <= -2147483648.0
                THEN -2147483648
                ELSE CAST(TRUNC("v0") AS BIGINT)
              END AS INT) AS "v0",
              CAST("v1" AS TEXT) AS "v1",
              CAST(NULL AS INT) AS "v2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_with_mor.db/pk_table_with_mor/p0=0/p1=1/bucket-0/data-24f8588c-d950-4e44-9d99-a023ea65a136-1.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "p0" = CAST(0 AS INT) AND "p1" = CAST(1 AS INT) AND "k0" >= CAST(0 AS INT)
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "k1", "k0"
        ORDER BY "s0" DESC, "s1" DESC, "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);
