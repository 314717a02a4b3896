-- title: aggregation merge engine (sum, listagg)
-- warehouse: <fixtures>/generated-paimon-java-0.9/warehouse
-- query: SELECT * FROM db.pk_agg
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
      ELSE CASE
        WHEN BOOL_OR(NOT "_VALUE_KIND" IN (0, 2))
        THEN ERROR(
          'table db.pk_agg: a retraction (-U/-D) reached aggregate function ''listagg'' of column ''name'', which cannot retract; set ''fields.name.ignore-retract''=''true'''
        )
        ELSE LISTAGG("name", ','
        ORDER BY
          "__paimon_ord") FILTER(WHERE
          NOT "name" IS NULL AND (
            "_VALUE_KIND" IN (0, 2)
          ))
      END
    END AS "name",
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN FIRST("v")
      ELSE CAST((
        (
          CAST(SUM(CASE WHEN "_VALUE_KIND" IN (0, 2) THEN "v" ELSE -"v" END) AS INT128) + 9223372036854775808
        ) % 18446744073709551616 + 18446744073709551616
      ) % 18446744073709551616 - 9223372036854775808 AS BIGINT)
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_agg/bucket-0/data-646c8d9e-6a31-4846-9f25-b355dc755339-0.parquet',
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_agg/bucket-0/data-8687236b-41b5-4a6b-b785-abbb9fccba1f-0.parquet',
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_agg/bucket-0/data-373a1fff-51e4-4884-9cee-36ae3725b05b-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
  )
  GROUP BY
    "id"
  HAVING
    NOT ANY_VALUE("__paimon_n") = 1 OR BOOL_AND("_VALUE_KIND" IN (0, 2))
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
      ELSE CASE
        WHEN BOOL_OR(NOT "_VALUE_KIND" IN (0, 2))
        THEN ERROR(
          'table db.pk_agg: a retraction (-U/-D) reached aggregate function ''listagg'' of column ''name'', which cannot retract; set ''fields.name.ignore-retract''=''true'''
        )
        ELSE LISTAGG("name", ','
        ORDER BY
          "__paimon_ord") FILTER(WHERE
          NOT "name" IS NULL AND (
            "_VALUE_KIND" IN (0, 2)
          ))
      END
    END AS "name",
    CASE
      WHEN ANY_VALUE("__paimon_n") = 1
      THEN FIRST("v")
      ELSE CAST((
        (
          CAST(SUM(CASE WHEN "_VALUE_KIND" IN (0, 2) THEN "v" ELSE -"v" END) AS INT128) + 9223372036854775808
        ) % 18446744073709551616 + 18446744073709551616
      ) % 18446744073709551616 - 9223372036854775808 AS BIGINT)
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_agg/bucket-0/data-646c8d9e-6a31-4846-9f25-b355dc755339-0.parquet',
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_agg/bucket-0/data-8687236b-41b5-4a6b-b785-abbb9fccba1f-0.parquet',
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_agg/bucket-0/data-373a1fff-51e4-4884-9cee-36ae3725b05b-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
  )
  GROUP BY
    "id"
  HAVING
    NOT ANY_VALUE("__paimon_n") = 1 OR BOOL_AND("_VALUE_KIND" IN (0, 2))
);
