-- title: Avro data files
-- warehouse: <fixtures>/generated-paimon-java-0.9/warehouse
-- query: SELECT * FROM db.pk_avro WHERE id IN (1, 2)
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("v" AS BIGINT) AS "v"
FROM (
  SELECT
    "id",
    "name",
    "v"
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
            "id",
            "name",
            "v",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM "__paimon_file_0"
        )
        WHERE
          "id" IN (CAST(1 AS INT), CAST(2 AS INT))
        UNION ALL
        SELECT
          *
        FROM (
          SELECT
            "id",
            "name",
            "v",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM "__paimon_file_1"
        )
        WHERE
          "id" IN (CAST(1 AS INT), CAST(2 AS INT))
        UNION ALL
        SELECT
          *
        FROM (
          SELECT
            "id",
            "name",
            "v",
            "_SEQUENCE_NUMBER",
            "_VALUE_KIND"
          FROM "__paimon_file_2"
        )
        WHERE
          "id" IN (CAST(1 AS INT), CAST(2 AS INT))
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "id"
        ORDER BY "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);
