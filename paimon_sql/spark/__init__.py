"""PySpark bulk writes into Paimon tables without a Paimon jar: executors write files, the driver commits.

>>> from paimon_sql.spark import write  # importing needs no pyspark; calling write() does
>>> callable(write)
True

`write` works on PySpark 3.5 and 4.x (``mapInArrow`` tasks and a driver commit, see
`paimon_sql.spark.writer`). `register` (the Spark 4 Python Data Source, ``df.write.format("paimon")``) is
not available yet and says so.
"""

from __future__ import annotations

from typing import Any

from paimon_sql.errors import MissingDependencyError, UnsupportedFeatureError
from paimon_sql.spark.writer import write


def register(spark: Any) -> None:
    """Register ``format("paimon")`` as a Spark 4 Python Data Source (not implemented yet).

    Raises:
        UnsupportedFeatureError: always for now; on PySpark 3.5 (no Python Data Source API) and on 4.x.
    """
    try:
        import pyspark
    except ImportError as err:
        raise MissingDependencyError(
            "paimon_sql.spark needs pyspark: pip install 'paimon-sql[spark]'"
        ) from err
    raise UnsupportedFeatureError(
        f"paimon_sql.spark.register: the Spark Python Data Source writer is not implemented yet "
        f"(pyspark {pyspark.__version__}); use paimon_sql.spark.write(df, 'db.table', warehouse=...)"
    )


__all__ = ["register", "write"]
