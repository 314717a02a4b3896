-- title: partial-update merge engine (grouped merge)
-- warehouse: <fixtures>/generated-paimon-java-0.9/warehouse
-- query: SELECT * FROM db.pk_pu
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("v" AS BIGINT) AS "v"
FROM (
  SELECT
    "id",
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN FIRST("name")
      ELSE LAST("name" ORDER BY "__paimon_ord") FILTER(WHERE
        NOT "name" IS NULL AND (
          "_VALUE_KIND" IN (0, 2)
        ))
    END AS "name",
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN FIRST("v")
      ELSE LAST("v" ORDER BY "__paimon_ord") FILTER(WHERE
        NOT "v" IS NULL AND (
          "_VALUE_KIND" IN (0, 2)
        ))
    END AS "v"
  FROM (
    SELECT
      *,
      ROW_NUMBER() OVER (PARTITION BY "id" ORDER BY "_SEQUENCE_NUMBER" ASC, "_VALUE_KIND" IN (0, 2) ASC) AS "__paimon_ord",
      COUNT(*) OVER (PARTITION BY "id") AS "__paimon_n"
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
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_pu/bucket-0/data-109465c3-8af4-4744-a770-c67b4650cc00-0.parquet',
          hive_partitioning = FALSE
        )
        UNION ALL
        SELECT
          "id",
          "name",
          "v",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_pu/bucket-0/data-455e10a8-e011-4faf-a682-907aad14da9a-0.parquet',
          hive_partitioning = FALSE
        )
        UNION ALL
        SELECT
          "id",
          "name",
          "v",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_pu/bucket-0/data-b2b34253-c3d5-4fab-8388-5f0ad0251539-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
  )
  GROUP BY
    "id"
  HAVING
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN BOOL_AND("_VALUE_KIND" IN (0, 2))
      ELSE BOOL_OR("_VALUE_KIND" IN (0, 2))
      AND CASE
        WHEN BOOL_OR(NOT "_VALUE_KIND" IN (0, 2))
        THEN CAST(ERROR(
          'table db.pk_pu: partial-update received a retraction (-U/-D); Java fails here too. Read with ''ignore-delete''=''true'' or ''partial-update.remove-record-on-delete''=''true'''
        ) AS BOOLEAN)
        ELSE TRUE
      END
    END
);

-- inlined (plan_query)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("v" AS BIGINT) AS "v"
FROM (
  SELECT
    "id",
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN FIRST("name")
      ELSE LAST("name" ORDER BY "__paimon_ord") FILTER(WHERE
        NOT "name" IS NULL AND (
          "_VALUE_KIND" IN (0, 2)
        ))
    END AS "name",
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN FIRST("v")
      ELSE LAST("v" ORDER BY "__paimon_ord") FILTER(WHERE
        NOT "v" IS NULL AND (
          "_VALUE_KIND" IN (0, 2)
        ))
    END AS "v"
  FROM (
    SELECT
      *,
      ROW_NUMBER() OVER (PARTITION BY "id" ORDER BY "_SEQUENCE_NUMBER" ASC, "_VALUE_KIND" IN (0, 2) ASC) AS "__paimon_ord",
      COUNT(*) OVER (PARTITION BY "id") AS "__paimon_n"
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
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_pu/bucket-0/data-109465c3-8af4-4744-a770-c67b4650cc00-0.parquet',
          hive_partitioning = FALSE
        )
        UNION ALL
        SELECT
          "id",
          "name",
          "v",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_pu/bucket-0/data-455e10a8-e011-4faf-a682-907aad14da9a-0.parquet',
          hive_partitioning = FALSE
        )
        UNION ALL
        SELECT
          "id",
          "name",
          "v",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_pu/bucket-0/data-b2b34253-c3d5-4fab-8388-5f0ad0251539-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
  )
  GROUP BY
    "id"
  HAVING
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN BOOL_AND("_VALUE_KIND" IN (0, 2))
      ELSE BOOL_OR("_VALUE_KIND" IN (0, 2))
      AND CASE
        WHEN BOOL_OR(NOT "_VALUE_KIND" IN (0, 2))
        THEN CAST(ERROR(
          'table db.pk_pu: partial-update received a retraction (-U/-D); Java fails here too. Read with ''ignore-delete''=''true'' or ''partial-update.remove-record-on-delete''=''true'''
        ) AS BOOLEAN)
        ELSE TRUE
      END
    END
);
