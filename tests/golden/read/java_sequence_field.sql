-- title: sequence.field orders the merge
-- warehouse: <fixtures>/generated-paimon-java-0.9/warehouse
-- query: SELECT * FROM db.pk_seq
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
          "id",
          "name",
          "v",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_seq/bucket-0/data-290c8e2f-c1f9-430c-b7d8-c6e8b72b1f9e-0.parquet',
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_seq/bucket-0/data-7627917a-5dbd-4ab3-964b-8d93875ae122-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "id"
        ORDER BY "v" DESC, "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- inlined (plan_query)
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
          "id",
          "name",
          "v",
          "_SEQUENCE_NUMBER",
          "_VALUE_KIND"
        FROM READ_PARQUET(
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_seq/bucket-0/data-290c8e2f-c1f9-430c-b7d8-c6e8b72b1f9e-0.parquet',
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
          '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_seq/bucket-0/data-7627917a-5dbd-4ab3-964b-8d93875ae122-0.parquet',
          hive_partitioning = FALSE
        )
      )
    )
    QUALIFY
      ROW_NUMBER() OVER (
        PARTITION BY "id"
        ORDER BY "v" DESC, "_SEQUENCE_NUMBER" DESC, NOT "_VALUE_KIND" IN (0, 2) ASC
      ) = 1
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);
