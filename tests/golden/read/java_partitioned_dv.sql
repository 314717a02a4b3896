-- title: partitioned primary-key table with deletion vectors
-- warehouse: <fixtures>/generated-paimon-java-0.9/warehouse
-- query: SELECT * FROM db.pk_part_dv
-- made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)

-- split 0 (stream)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("dt" AS TEXT) AS "dt"
FROM (
  SELECT
    "id",
    "name",
    "dt"
  FROM (
    SELECT
      "id",
      "name",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST('2024-01-01' AS TEXT) AS "dt"
    FROM (
      SELECT
        "id",
        "name",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_part_dv/dt=2024-01-01/bucket-0/data-d6630970-1cf5-4e33-aa5c-276bd340d8de-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- split 1 (stream)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("dt" AS TEXT) AS "dt"
FROM (
  SELECT
    "id",
    "name",
    "dt"
  FROM (
    SELECT
      "id",
      "name",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST('2024-01-02' AS TEXT) AS "dt"
    FROM (
      SELECT
        "id",
        "name",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_part_dv/dt=2024-01-02/bucket-0/data-50577ca9-0c1f-40a8-9677-295f3d498793-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- split 2 (stream)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("dt" AS TEXT) AS "dt"
FROM (
  SELECT
    "id",
    "name",
    "dt"
  FROM (
    SELECT
      "id",
      "name",
      "_SEQUENCE_NUMBER",
      "_VALUE_KIND",
      CAST('2024-01-02' AS TEXT) AS "dt"
    FROM (
      SELECT
        "id",
        "name",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND"
      FROM READ_PARQUET(
        '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_part_dv/dt=2024-01-02/bucket-1/data-965c998d-5c84-4d7c-8243-e386c1a6e422-0.parquet',
        hive_partitioning = FALSE
      )
    )
  )
  WHERE
    "_VALUE_KIND" IN (0, 2)
);

-- inlined (plan_query)
SELECT
  CAST("id" AS INT) AS "id",
  CAST("name" AS TEXT) AS "name",
  CAST("dt" AS TEXT) AS "dt"
FROM (
  SELECT
    "id",
    "name",
    "dt"
  FROM READ_PARQUET(
    [
      '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_part_dv/dt=2024-01-01/bucket-0/data-d6630970-1cf5-4e33-aa5c-276bd340d8de-0.parquet',
      '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_part_dv/dt=2024-01-02/bucket-0/data-50577ca9-0c1f-40a8-9677-295f3d498793-0.parquet',
      '<fixtures>/generated-paimon-java-0.9/warehouse/db.db/pk_part_dv/dt=2024-01-02/bucket-1/data-965c998d-5c84-4d7c-8243-e386c1a6e422-0.parquet'
    ],
    hive_partitioning = FALSE
  )
);
