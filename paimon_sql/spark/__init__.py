"""PySpark bulk writes into Paimon tables without a Paimon jar.

Executors write files, the driver commits.

>>> from paimon_sql.spark import write  # importing needs no pyspark; calling write() does
>>> callable(write)
True

`write` works on PySpark 3.5 and 4.x (``mapInArrow`` tasks and a driver commit, see
`paimon_sql.spark.writer`). On PySpark 4, `register` also makes ``df.write.format("paimon")`` write
(`paimon_sql.spark.datasource`); on 3.5 it raises `UnsupportedFeatureError`.
"""

from __future__ import annotations

from typing import Any

from paimon_sql.errors import MissingDependencyError, UnsupportedFeatureError
from paimon_sql.spark.writer import write


def register(spark: Any) -> None:
    """Register ``format("paimon")`` (a Spark 4 Python Data Source) on the session `spark`.

    Then ``df.write.format("paimon").option("warehouse", wh).mode("append").save("db.t")`` writes
    through `paimon_sql.spark.datasource` (``mode("overwrite")`` replaces the table, or the written
    partitions with ``.option("partitionOverwriteMode", "dynamic")``).

    Raises:
        UnsupportedFeatureError: PySpark 3.5 has no Python Data Source API (use `write` there).
    """
    try:
        import pyspark
    except ImportError as err:
        raise MissingDependencyError(
            "paimon_sql.spark needs pyspark: pip install 'paimon-sql[spark]'"
        ) from err
    major = int(pyspark.__version__.split(".")[0])
    if major < 4:
        raise UnsupportedFeatureError(
            f"format('paimon') needs PySpark 4 (its Python Data Source API); this is pyspark "
            f"{pyspark.__version__}: use paimon_sql.spark.write(df, 'db.table', warehouse=...)"
        )
    from paimon_sql.spark.datasource import AVAILABLE, PaimonDataSource

    if not AVAILABLE:
        raise UnsupportedFeatureError(
            f"pyspark {pyspark.__version__} has no pyspark.sql.datasource.DataSourceArrowWriter; "
            "use paimon_sql.spark.write(df, 'db.table', warehouse=...)"
        )
    spark.dataSource.register(PaimonDataSource)


__all__ = ["register", "write"]
