-- title: key statistics prune files of a merge-on-read table
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor WHERE f0 < 'B'
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
          '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-0/data-cf759363-12eb-4f9f-9549-965e455e8084-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
    WHERE
      "f0" < CAST('B' AS TEXT)
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
          "f0" < CAST('B' AS TEXT)
      ) AS f
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
          "f0" < CAST('B' AS TEXT)
      ) AS f
      ANTI JOIN (
        SELECT
          "f0",
          "f2"
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
                '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet',
                hive_partitioning = FALSE
              )
            )
          )
          WHERE
            "f0" < CAST('B' AS TEXT)
        )
      ) AS n
        ON "f"."f0" IS NOT DISTINCT FROM "n"."f0" AND "f"."f2" IS NOT DISTINCT FROM "n"."f2"
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
          "f0" < CAST('B' AS TEXT)
      ) AS f
      ANTI JOIN (
        SELECT
          *
        FROM (
          SELECT
            "f0",
            "f2"
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
                  '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet',
                  hive_partitioning = FALSE
                )
              )
            )
            WHERE
              "f0" < CAST('B' AS TEXT)
          )
          UNION ALL
          SELECT
            "f0",
            "f2"
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
              "f0" < CAST('B' AS TEXT)
          )
        )
      ) AS n
        ON "f"."f0" IS NOT DISTINCT FROM "n"."f0" AND "f"."f2" IS NOT DISTINCT FROM "n"."f2"
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
            "f0" < CAST('B' AS TEXT)
        ) AS f
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
            "f0" < CAST('B' AS TEXT)
        ) AS f
        ANTI JOIN (
          SELECT
            "f0",
            "f2"
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
                  '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet',
                  hive_partitioning = FALSE
                )
              )
            )
            WHERE
              "f0" < CAST('B' AS TEXT)
          )
        ) AS n
          ON "f"."f0" IS NOT DISTINCT FROM "n"."f0" AND "f"."f2" IS NOT DISTINCT FROM "n"."f2"
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
            "f0" < CAST('B' AS TEXT)
        ) AS f
        ANTI JOIN (
          SELECT
            *
          FROM (
            SELECT
              "f0",
              "f2"
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
                    '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-1/data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet',
                    hive_partitioning = FALSE
                  )
                )
              )
              WHERE
                "f0" < CAST('B' AS TEXT)
            )
            UNION ALL
            SELECT
              "f0",
              "f2"
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
                "f0" < CAST('B' AS TEXT)
            )
          )
        ) AS n
          ON "f"."f0" IS NOT DISTINCT FROM "n"."f0" AND "f"."f2" IS NOT DISTINCT FROM "n"."f2"
      )
      WHERE
        "_VALUE_KIND" IN (0, 2)
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
        '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/f1=10/bucket-0/data-cf759363-12eb-4f9f-9549-965e455e8084-0.parquet'
      ],
      hive_partitioning = FALSE
    )
  )
);
