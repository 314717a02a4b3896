-- title: nested types (struct, list, map) in a MOR merge
-- warehouse: <fixtures>/paimon-cpp/test/test_data/parquet
-- query: SELECT * FROM pk_table_nested_type.pk_table_nested_type
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("shopId" AS INT) AS "shopId",
  CAST("dt" AS TEXT) AS "dt",
  CAST("hr" AS INT) AS "hr",
  CAST("col0" AS INT) AS "col0",
  CAST("col1" AS STRUCT("f0" TEXT, "f1" INT, "f2" INT[])) AS "col1",
  CAST("col2" AS MAP(INT, INT)) AS "col2"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "shopId",
      "col0",
      "col1",
      "col2",
      "dt",
      "hr"
    FROM (
      SELECT
        *
      FROM (
        SELECT
          "shopId",
          "col0",
          "col1",
          "col2",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND",
          CAST('2025-04-14' AS TEXT) AS "dt",
          CAST(10 AS INT) AS "hr"
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM READ_PARQUET(
            '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-1.parquet',
            hive_partitioning = FALSE
          )
        )
      ) AS f
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
    UNION ALL
    SELECT
      "shopId",
      "col0",
      "col1",
      "col2",
      "dt",
      "hr"
    FROM (
      SELECT
        *
      FROM (
        SELECT
          "shopId",
          "col0",
          "col1",
          "col2",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND",
          CAST('2025-04-14' AS TEXT) AS "dt",
          CAST(10 AS INT) AS "hr"
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM READ_PARQUET(
            '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet',
            hive_partitioning = FALSE
          )
        )
      ) AS f
      ANTI JOIN (
        SELECT
          "shopId"
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST('2025-04-14' AS TEXT) AS "dt",
            CAST(10 AS INT) AS "hr"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-1.parquet',
              hive_partitioning = FALSE
            )
          )
        )
      ) AS n
        ON "f"."shopId" IS NOT DISTINCT FROM "n"."shopId"
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
  )
);

-- split 1 (stream)
SELECT
  CAST("shopId" AS INT) AS "shopId",
  CAST("dt" AS TEXT) AS "dt",
  CAST("hr" AS INT) AS "hr",
  CAST("col0" AS INT) AS "col0",
  CAST("col1" AS STRUCT("f0" TEXT, "f1" INT, "f2" INT[])) AS "col1",
  CAST("col2" AS MAP(INT, INT)) AS "col2"
FROM (
  SELECT
    *
  FROM (
    SELECT
      "shopId",
      "col0",
      "col1",
      "col2",
      "dt",
      "hr"
    FROM (
      SELECT
        *
      FROM (
        SELECT
          "shopId",
          "col0",
          "col1",
          "col2",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND",
          CAST('2025-04-14' AS TEXT) AS "dt",
          CAST(10 AS INT) AS "hr"
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM READ_PARQUET(
            '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet',
            hive_partitioning = FALSE
          )
        )
      ) AS f
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
    UNION ALL
    SELECT
      "shopId",
      "col0",
      "col1",
      "col2",
      "dt",
      "hr"
    FROM (
      SELECT
        *
      FROM (
        SELECT
          "shopId",
          "col0",
          "col1",
          "col2",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND",
          CAST('2025-04-14' AS TEXT) AS "dt",
          CAST(10 AS INT) AS "hr"
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM READ_PARQUET(
            '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-0.parquet',
            hive_partitioning = FALSE
          )
        )
      ) AS f
      ANTI JOIN (
        SELECT
          "shopId"
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST('2025-04-14' AS TEXT) AS "dt",
            CAST(10 AS INT) AS "hr"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet',
              hive_partitioning = FALSE
            )
          )
        )
      ) AS n
        ON "f"."shopId" IS NOT DISTINCT FROM "n"."shopId"
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
    CAST("shopId" AS INT) AS "shopId",
    CAST("dt" AS TEXT) AS "dt",
    CAST("hr" AS INT) AS "hr",
    CAST("col0" AS INT) AS "col0",
    CAST("col1" AS STRUCT("f0" TEXT, "f1" INT, "f2" INT[])) AS "col1",
    CAST("col2" AS MAP(INT, INT)) AS "col2"
  FROM (
    SELECT
      *
    FROM (
      SELECT
        "shopId",
        "col0",
        "col1",
        "col2",
        "dt",
        "hr"
      FROM (
        SELECT
          *
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST('2025-04-14' AS TEXT) AS "dt",
            CAST(10 AS INT) AS "hr"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-1.parquet',
              hive_partitioning = FALSE
            )
          )
        ) AS f
      )
      WHERE
        "_VALUE_KIND" IN (0, 2)
      UNION ALL
      SELECT
        "shopId",
        "col0",
        "col1",
        "col2",
        "dt",
        "hr"
      FROM (
        SELECT
          *
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST('2025-04-14' AS TEXT) AS "dt",
            CAST(10 AS INT) AS "hr"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet',
              hive_partitioning = FALSE
            )
          )
        ) AS f
        ANTI JOIN (
          SELECT
            "shopId"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND",
              CAST('2025-04-14' AS TEXT) AS "dt",
              CAST(10 AS INT) AS "hr"
            FROM (
              SELECT
                "shopId",
                "col0",
                "col1",
                "col2",
                "_SEQUENCE_NUMBER",
                "_VALUE_KIND"
              FROM READ_PARQUET(
                '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-1.parquet',
                hive_partitioning = FALSE
              )
            )
          )
        ) AS n
          ON "f"."shopId" IS NOT DISTINCT FROM "n"."shopId"
      )
      WHERE
        "_VALUE_KIND" IN (0, 2)
    )
  )
  UNION ALL
  SELECT
    CAST("shopId" AS INT) AS "shopId",
    CAST("dt" AS TEXT) AS "dt",
    CAST("hr" AS INT) AS "hr",
    CAST("col0" AS INT) AS "col0",
    CAST("col1" AS STRUCT("f0" TEXT, "f1" INT, "f2" INT[])) AS "col1",
    CAST("col2" AS MAP(INT, INT)) AS "col2"
  FROM (
    SELECT
      *
    FROM (
      SELECT
        "shopId",
        "col0",
        "col1",
        "col2",
        "dt",
        "hr"
      FROM (
        SELECT
          *
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST('2025-04-14' AS TEXT) AS "dt",
            CAST(10 AS INT) AS "hr"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet',
              hive_partitioning = FALSE
            )
          )
        ) AS f
      )
      WHERE
        "_VALUE_KIND" IN (0, 2)
      UNION ALL
      SELECT
        "shopId",
        "col0",
        "col1",
        "col2",
        "dt",
        "hr"
      FROM (
        SELECT
          *
        FROM (
          SELECT
            "shopId",
            "col0",
            "col1",
            "col2",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND",
            CAST('2025-04-14' AS TEXT) AS "dt",
            CAST(10 AS INT) AS "hr"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND"
            FROM READ_PARQUET(
              '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-0.parquet',
              hive_partitioning = FALSE
            )
          )
        ) AS f
        ANTI JOIN (
          SELECT
            "shopId"
          FROM (
            SELECT
              "shopId",
              "col0",
              "col1",
              "col2",
              "_SEQUENCE_NUMBER",
              "_VALUE_KIND",
              CAST('2025-04-14' AS TEXT) AS "dt",
              CAST(10 AS INT) AS "hr"
            FROM (
              SELECT
                "shopId",
                "col0",
                "col1",
                "col2",
                "_SEQUENCE_NUMBER",
                "_VALUE_KIND"
              FROM READ_PARQUET(
                '<fixtures>/paimon-cpp/test/test_data/parquet/pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet',
                hive_partitioning = FALSE
              )
            )
          )
        ) AS n
          ON "f"."shopId" IS NOT DISTINCT FROM "n"."shopId"
      )
      WHERE
        "_VALUE_KIND" IN (0, 2)
    )
  )
);
