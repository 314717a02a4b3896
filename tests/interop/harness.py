"""Apache Paimon (Java, through PySpark) as the test oracle.

One JVM per process. `spark_session` gives one Spark session per warehouse folder; each has a Paimon
catalog named ``paimon`` (also the default catalog) over that folder, so ``spark_sql(s, "SELECT *
FROM db.t")`` and ``CALL sys.compact(table => 'db.t')`` work as users write them. The sessions
share the JVM: `SparkSession.newSession` keeps SQL settings and catalogs per session.

Rows come back as ``dict`` per row with plain Python values (``Decimal``, ``datetime``, ``bytes``,
``dict`` for MAP and STRUCT, ``list`` for ARRAY). `assert_rows_equal` compares two such lists as
multisets after normalising types, so the oracle can be compared with paimon-sql's ``fetchall()``.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import fcntl
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.interop import _versions

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession
    from pyspark.sql.types import DataType

__all__ = [
    "HarnessError",
    "assert_rows_equal",
    "assert_spark_reads",
    "cache_dir",
    "canonical_rows",
    "paimon_jar",
    "spark_columns",
    "spark_rows",
    "spark_session",
    "spark_sql",
]

CATALOG = "paimon"
Decimal0 = decimal.Decimal(0)
_ROOT: SparkSession | None = None
_SESSIONS: dict[Path, SparkSession] = {}


class HarnessError(RuntimeError):
    """The oracle cannot run here (no JVM, no Maven, no pyspark, Maven Central unreachable)."""


def cache_dir() -> Path:
    """``${PAIMON_SQL_CACHE:-$HOME/.cache/paimon-sql}``: survives clean clones on this machine."""
    root = os.environ.get("PAIMON_SQL_CACHE") or str(Path.home() / ".cache" / "paimon-sql")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


# --- the jar ----------------------------------------------------------------------------------


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    candidate = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not candidate or not Path(candidate).exists():
        raise HarnessError(
            "no JVM: the Paimon oracle needs Java 8/11/17 (`java` on PATH or JAVA_HOME); "
            "install a JDK, e.g. `apt-get install openjdk-17-jdk-headless`"
        )
    return candidate


def paimon_jar() -> Path:
    """The Paimon Spark runtime jar in ``<cache>/jars``, fetched with Maven when missing.

    Raises `HarnessError` (never skips) when ``mvn`` is missing or Maven Central is unreachable.
    """
    jars = cache_dir() / "jars"
    jar = jars / _versions.PAIMON_SPARK_JAR
    if zipfile.is_zipfile(jar):
        return jar
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError(
            f"`mvn` is not on PATH: it is needed once to fetch {_versions.PAIMON_SPARK_ARTIFACT} "
            f"into {jars} (or put the jar there yourself)"
        )
    jars.mkdir(parents=True, exist_ok=True)
    with open(jars / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if zipfile.is_zipfile(jar):
            return jar
        with tempfile.TemporaryDirectory(dir=jars) as tmp:
            cmd = [
                mvn,
                "-B",
                "-q",
                "-U",  # Maven caches a failed download; retry it
                "dependency:copy",
                f"-Dartifact={_versions.PAIMON_SPARK_ARTIFACT}",
                f"-DoutputDirectory={tmp}",
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp)
            fetched = Path(tmp) / _versions.PAIMON_SPARK_JAR
            if proc.returncode != 0 or not zipfile.is_zipfile(fetched):
                raise HarnessError(
                    f"Maven could not fetch {_versions.PAIMON_SPARK_ARTIFACT} (is Maven Central "
                    f"reachable?); ran: {' '.join(cmd)}\n"
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
                )
            os.replace(fetched, jar)
    return jar


# --- sessions ---------------------------------------------------------------------------------


def _root() -> SparkSession:
    global _ROOT
    if _ROOT is not None:
        return _ROOT
    try:
        import pyspark
        from pyspark.sql import SparkSession
    except ImportError as err:
        raise HarnessError(
            f"pyspark is not installed: pip install 'pyspark=={_versions.PYSPARK}' "
            "(the project's [spark] extra)"
        ) from err
    if not pyspark.__version__.startswith(_versions.SPARK_BINARY + "."):
        raise HarnessError(
            f"pyspark {pyspark.__version__} does not match the Paimon runtime jar "
            f"(built for Spark {_versions.SPARK_BINARY}); install pyspark=={_versions.PYSPARK}"
        )
    _java()
    jar = paimon_jar()
    from pyspark import SparkContext

    if SparkContext._gateway is not None:  # a JVM started earlier in this process
        raise HarnessError(
            "a Spark JVM was started in this process before the interop harness's, without the "
            "Paimon jar (PySpark starts one JVM per process, with the first session's jars): "
            "start other Spark sessions in a child process (see tests/spark/test_write.py)"
        )
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    settings = {
        "spark.jars": str(jar),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.driver.memory": "1g",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.extensions": "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions",
        "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -Duser.timezone=UTC",
    }
    builder = SparkSession.builder.master("local[2]").appName("paimon-sql-interop")
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        _ROOT = builder.getOrCreate()
    except Exception as err:  # the JVM failed to start: say so loudly
        raise HarnessError(f"Spark could not start with {jar}: {err}") from err
    _ROOT.sparkContext.setLogLevel("ERROR")
    return _ROOT


def spark_session(warehouse: Path) -> SparkSession:
    """A Spark session whose default catalog ``paimon`` is a Paimon catalog over `warehouse`.

    The first call starts the JVM (local[2]); later calls, with the same or other warehouses,
    reuse it. The catalog's table cache is off, so Spark sees commits made by other writers.
    """
    key = Path(warehouse).resolve()
    session = _SESSIONS.get(key)
    if session is not None:
        return session
    key.mkdir(parents=True, exist_ok=True)
    session = _root().newSession()
    prefix = f"spark.sql.catalog.{CATALOG}"
    session.conf.set(prefix, "org.apache.paimon.spark.SparkCatalog")
    session.conf.set(prefix + ".warehouse", key.as_uri())
    session.conf.set(prefix + ".cache-enabled", "false")
    session.conf.set("spark.sql.defaultCatalog", CATALOG)
    _SESSIONS[key] = session
    return session


def spark_sql(spark: SparkSession, sql: str) -> list[Row]:
    """Run one Spark SQL statement; its result rows, collected."""
    return spark.sql(sql).collect()


def _quote(table: str) -> str:
    return ".".join("`" + part.replace("`", "``") + "`" for part in table.split("."))


def _select(table: str, version: int | str | None) -> str:
    query = "SELECT * FROM " + CATALOG + "." + _quote(table)  # noqa: S608 - Spark SQL
    if isinstance(version, int):
        query += f" VERSION AS OF {version}"
    elif version is not None:
        query += " VERSION AS OF '" + version.replace("'", "\\'") + "'"
    return query


def spark_columns(
    spark: SparkSession, table: str, *, version: int | str | None = None
) -> list[str]:
    """The column names Spark reads from ``db.table`` (at a snapshot id or tag)."""
    return list(spark.sql(_select(table, version)).columns)


def spark_rows(
    spark: SparkSession, table: str, *, version: int | str | None = None
) -> list[dict[str, Any]]:
    """Spark's read of ``db.table``: the latest snapshot, or ``VERSION AS OF`` a snapshot id/tag."""
    frame = spark.sql(_select(table, version))
    fields = frame.schema.fields
    return [
        {f.name: _from_spark(row[i], f.dataType) for i, f in enumerate(fields)}
        for row in frame.collect()
    ]


def _from_spark(value: Any, dtype: DataType) -> Any:
    """Plain Python values: Row -> dict, LTZ timestamps as aware UTC datetimes."""
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(dtype, T.TimestampType):
        # pyspark turns a TIMESTAMP (an instant) into a naive datetime in the process's zone.
        return value.astimezone(_dt.UTC)
    if isinstance(dtype, T.ArrayType):
        return [_from_spark(v, dtype.elementType) for v in value]
    if isinstance(dtype, T.MapType):
        return {
            _from_spark(k, dtype.keyType): _from_spark(v, dtype.valueType) for k, v in value.items()
        }
    if isinstance(dtype, T.StructType):
        return {f.name: _from_spark(value[i], f.dataType) for i, f in enumerate(dtype.fields)}
    if isinstance(dtype, T.BinaryType):
        return bytes(value)
    return value


# --- comparing --------------------------------------------------------------------------------


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    try:
        as_float32 = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return repr(value)
    if as_float32 == value:  # a FLOAT read as a double: print it as the float32 it is
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if struct.unpack("<f", struct.pack("<f", float(text)))[0] == value:
                return repr(float(text))
    return repr(value)


def _canon(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return ["float", _float_text(value)]
    if isinstance(value, decimal.Decimal):
        # by value: pyspark may hand DECIMAL(38, 10) -1E-10 over as Decimal('-1.00E-10')
        return ["decimal", format(Decimal0 if value.is_zero() else value.normalize(), "f")]
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.UTC).replace(tzinfo=None)
        return ["timestamp", value.isoformat()]
    if isinstance(value, _dt.date):
        return ["date", value.isoformat()]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ["binary", bytes(value).hex()]
    if isinstance(value, dict):  # MAP and STRUCT alike: a sorted list of [key, value]
        pairs = [[_canon(k), _canon(v)] for k, v in value.items()]
        return ["map", sorted(pairs, key=json.dumps)]
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    if hasattr(value, "asDict"):  # a pyspark Row that did not go through spark_rows
        return _canon(value.asDict(recursive=True))
    raise TypeError(f"cannot normalise {type(value).__name__} value {value!r}")


def canonical_rows(rows: list[dict[str, Any]]) -> list[str]:
    """Each row as one JSON text with normalised values; sorted, so lists compare as multisets.

    Decimals compare by value (``1.50`` equals ``1.5``), timestamps as naive UTC, FLOAT values
    read as doubles by their float32 text, bytes as hex, MAP and STRUCT as sorted
    ``[key, value]`` pairs.
    """
    return sorted(
        json.dumps({k: _canon(v) for k, v in row.items()}, sort_keys=True) for row in rows
    )


def assert_rows_equal(
    actual: list[dict[str, Any]], expected: list[dict[str, Any]], *, context: str = ""
) -> None:
    """Fail, listing the rows that differ, unless both hold the same rows (in any order)."""
    got, want = Counter(canonical_rows(actual)), Counter(canonical_rows(expected))
    if got == want:
        return
    missing = list((want - got).elements())
    extra = list((got - want).elements())
    lines = [f"{context}: rows differ ({len(actual)} read, {len(expected)} expected)"]
    lines += [f"  missing: {r}" for r in missing[:10]] + (
        [f"  ... {len(missing) - 10} more"] if len(missing) > 10 else []
    )
    lines += [f"  unexpected: {r}" for r in extra[:10]] + (
        [f"  ... {len(extra) - 10} more"] if len(extra) > 10 else []
    )
    raise AssertionError("\n".join(lines))


def assert_spark_reads(warehouse: Path, table: str, expected: list[dict[str, Any]]) -> None:
    """Apache Paimon (through Spark) reads ``db.table`` in `warehouse` as exactly `expected`.

    Order-insensitive; values are normalised as in `canonical_rows`, and every expected row must
    name every column Spark reads.
    """
    rows = spark_rows(spark_session(warehouse), table)
    assert_rows_equal(rows, expected, context=f"Spark's read of {table} in {warehouse}")
