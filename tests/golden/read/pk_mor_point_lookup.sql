-- title: every key column pinned: window merge instead of the chain, value filter above the merge
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT f0, f3 FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor WHERE f0 = 'Alex' AND f1 = 10 AND f2 = 0 AND f3 > 0
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("f0" AS TEXT) AS "f0",
  CAST("f3" AS DOUBLE) AS "f3"
FROM (
  SELECT
    "f0",
    "f3",
    "f2",
    "f1"
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
            "f0",
            "f3",
            "f2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(10 AS INT) AS "f1"
          FROM (
            SELECT
              "f0",
              "f3",
              "f2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-a6394463-418c-423d-b9e2-f77e8a065f39-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "f0" = CAST('Alex' AS TEXT) AND "f1" = CAST(10 AS INT) AND "f2" = CAST(0 AS INT)
        UNION ALL
        SELECT
          *
        FROM (
          SELECT
            "f0",
            "f3",
            "f2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(10 AS INT) AS "f1"
          FROM (
            SELECT
              "f0",
              "f3",
              "f2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "f0" = CAST('Alex' AS TEXT) AND "f1" = CAST(10 AS INT) AND "f2" = CAST(0 AS INT)
        UNION ALL
        SELECT
          *
        FROM (
          SELECT
            "f0",
            "f3",
            "f2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST(10 AS INT) AS "f1"
          FROM (
            SELECT
              "f0",
              "f3",
              "f2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-3a6000ce-0611-462e-8a99-f3cb28aa6f08-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "f0" = CAST('Alex' AS TEXT) AND "f1" = CAST(10 AS INT) AND "f2" = CAST(0 AS INT)
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "f0", "f2"
        ORDER BY "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
)
WHERE
  "f3" > CAST(0 AS DOUBLE);

-- inlined (plan_query)
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
        *
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
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-a6394463-418c-423d-b9e2-f77e8a065f39-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "f0" = CAST('Alex' AS TEXT) AND "f1" = CAST(10 AS INT) AND "f2" = CAST(0 AS INT)
        UNION ALL
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
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "f0" = CAST('Alex' AS TEXT) AND "f1" = CAST(10 AS INT) AND "f2" = CAST(0 AS INT)
        UNION ALL
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
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-3a6000ce-0611-462e-8a99-f3cb28aa6f08-0.parquet',
              hive_partitioning = FALSE
            )
          )
        )
        WHERE
          "f0" = CAST('Alex' AS TEXT) AND "f1" = CAST(10 AS INT) AND "f2" = CAST(0 AS INT)
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "f0", "f2"
        ORDER BY "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
)
WHERE
  "f3" > CAST(0 AS DOUBLE);
