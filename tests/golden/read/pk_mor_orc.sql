-- title: ORC data files: registered Arrow tables instead of read_parquet
-- warehouse: <fixtures>/paimon-cpp/test/test_data/orc
-- query: SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor
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
      FROM "__paimon_file_0"
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
          FROM "__paimon_file_1"
        )
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
          FROM "__paimon_file_0"
        )
      ) AS f
      ANTI JOIN (
        SELECT
          "f0",
          "f2"
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
            FROM "__paimon_file_1"
          )
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
          FROM "__paimon_file_3"
        )
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
              FROM "__paimon_file_1"
            )
          )
          UNION ALL
          SELECT
            "f0",
            "f2"
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
              FROM "__paimon_file_0"
            )
          )
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
          FROM "__paimon_file_2"
        )
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
              FROM "__paimon_file_1"
            )
          )
          UNION ALL
          SELECT
            "f0",
            "f2"
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
              FROM "__paimon_file_0"
            )
          )
          UNION ALL
          SELECT
            "f0",
            "f2"
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
              FROM "__paimon_file_3"
            )
          )
        )
      ) AS n
        ON "f"."f0" IS NOT DISTINCT FROM "n"."f0" AND "f"."f2" IS NOT DISTINCT FROM "n"."f2"
    )
    WHERE
      "_VALUE_KIND" IN (0, 2)
  )
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
      FROM "__paimon_file_0"
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);
