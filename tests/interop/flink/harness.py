"""Apache Paimon 1.3.1 (through Flink 1.20) as the second test oracle.

`oracle()` gives the one `FlinkOracle` of this process: a worker (``_worker.py``) running in the
cached Flink virtualenv, holding one Flink MiniCluster and a batch ``TableEnvironment``. Each
warehouse folder gets its own Paimon catalog there; ``oracle().sql(warehouse, "INSERT ...")`` runs
Flink SQL as users write it, ``CREATE TABLE ... WITH (...)``, ``INSERT``, ``CALL sys.*``,
``SELECT`` (with ``/*+ OPTIONS('scan.snapshot-id' = 'N') */`` for time travel).

Rows come back lossless: a small Java class (``Bridge.java``, compiled here with ``javac``) turns
Flink's result rows into tagged JSON, so nanoseconds, CHAR padding and NULL-versus-all-NULL rows
survive (PyFlink's own row conversion drops nanoseconds). `canonical_flink` and `canonical_arrow`
bring Flink's and paimon-sql's (Arrow) values into one canonical JSON form, and
`assert_same_rows` compares two such row lists as multisets.

Nothing here skips: a missing JVM, ``javac``, ``mvn`` or Python 3.11 raises `HarnessError`.
"""

from __future__ import annotations

import atexit
import datetime as _dt
import decimal
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.interop.harness import HarnessError, cache_dir

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "FLINK_ARTIFACTS",
    "FlinkError",
    "FlinkOracle",
    "HarnessError",
    "assert_same_rows",
    "canonical_arrow",
    "canonical_flink",
    "oracle",
]

PYFLINK = "apache-flink==1.20.5"
PAIMON = "1.3.1"
FLINK_ARTIFACTS = (
    f"org.apache.paimon:paimon-flink-1.20:{PAIMON}",
    # Paimon's filesystem catalog needs Hadoop's classes; PyFlink ships none.
    "org.apache.flink:flink-shaded-hadoop-2-uber:2.8.3-10.0",
)
_HERE = Path(__file__).resolve().parent
_STAMP = ".paimon-sql-requirements.json"
_ORACLE: FlinkOracle | None = None
_LOCK = threading.Lock()


class FlinkError(RuntimeError):
    """Flink refused or failed a statement; the message holds the Java exception chain.

    Not an AssertionError: a known failure of paimon-sql (a strict xfail) must never be
    satisfied by Flink failing instead.
    """


# --- the virtualenv, the jars, the bridge -----------------------------------------------------


def _python311() -> str:
    if sys.version_info[:2] == (3, 11):
        return sys.executable
    found = shutil.which("python3.11")
    if found is None:
        raise HarnessError(
            "PyFlink 1.20 needs Python 3.11 (it has no wheels for newer Pythons): "
            "put `python3.11` on PATH"
        )
    return found


def flink_python() -> Path:
    """Python of ``<cache>/venvs/flink`` with PyFlink, built on first use under a file lock."""
    root = cache_dir() / "venvs"
    root.mkdir(parents=True, exist_ok=True)
    venv = root / "flink"
    python = venv / "bin" / "python"
    wanted = [PYFLINK]
    with open(root / ".flink.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            stamp = json.loads((venv / _STAMP).read_text())
        except (OSError, ValueError):
            stamp = None
        if stamp != wanted or not python.exists():
            _build_venv(venv, wanted)
    return python


def _build_venv(venv: Path, requirements: list[str]) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    print(f"[flink oracle] creating {venv} with {' '.join(requirements)}", file=sys.stderr)
    steps = [
        [_python311(), "-m", "venv", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--upgrade", "pip"],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *requirements],
    ]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            raise HarnessError(
                f"building {venv} failed at: {' '.join(step)}\n{proc.stdout[-2000:]}"
                f"\n{proc.stderr[-4000:]}"
            )
    (venv / _STAMP).write_text(json.dumps(requirements))


def _jar_name(artifact: str) -> str:
    _, name, version = artifact.split(":")
    return f"{name}-{version}.jar"


def flink_jars() -> list[Path]:
    """The Paimon Flink and shaded Hadoop jars in ``<cache>/jars``, fetched with Maven if missing.

    Ivy cannot reach Maven from our machines; ``mvn dependency:copy`` can.
    """
    jars = cache_dir() / "jars"
    jars.mkdir(parents=True, exist_ok=True)
    out = []
    for artifact in FLINK_ARTIFACTS:
        jar = jars / _jar_name(artifact)
        if not zipfile.is_zipfile(jar):
            _fetch(artifact, jar)
        out.append(jar)
    return out


def _fetch(artifact: str, jar: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError(
            f"`mvn` is not on PATH: it is needed once to fetch {artifact} into {jar.parent}"
        )
    with open(jar.parent / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if zipfile.is_zipfile(jar):
            return
        with tempfile.TemporaryDirectory(dir=jar.parent) as tmp:
            cmd = [
                mvn,
                "-B",
                "-q",
                "-U",
                "dependency:copy",
                f"-Dartifact={artifact}",
                f"-DoutputDirectory={tmp}",
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp)
            fetched = Path(tmp) / jar.name
            if proc.returncode != 0 or not zipfile.is_zipfile(fetched):
                raise HarnessError(
                    f"Maven could not fetch {artifact}; ran: {' '.join(cmd)}\n"
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
                )
            os.replace(fetched, jar)


def _flink_lib(python: Path) -> Path:
    proc = subprocess.run(
        [str(python), "-c", "import pyflink, os; print(os.path.dirname(pyflink.__file__))"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise HarnessError(f"pyflink does not import in {python}: {proc.stderr[-2000:]}")
    return Path(proc.stdout.strip()) / "lib"


def bridge_jar(python: Path) -> Path:
    """``Bridge.java`` compiled against PyFlink's jars, cached by the source's content."""
    source = _HERE / "Bridge.java"
    digest = __import__("hashlib").sha256(source.read_bytes()).hexdigest()[:16]
    out = cache_dir() / "jars" / f"paimon-sql-flink-bridge-{digest}.jar"
    if zipfile.is_zipfile(out):
        return out
    javac, jar_tool = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar_tool is None:
        raise HarnessError(
            "the Flink oracle compiles a small Java class: `javac` and `jar` (a JDK) are needed"
        )
    classpath = os.pathsep.join(str(p) for p in sorted(_flink_lib(python).glob("*.jar")))
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        proc = subprocess.run(
            [javac, "--release", "11", "-nowarn", "-cp", classpath, "-d", tmp, str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise HarnessError(f"javac failed on {source}:\n{proc.stdout}\n{proc.stderr}")
        built = Path(tmp) / out.name
        proc = subprocess.run(
            [jar_tool, "cf", str(built), "-C", tmp, "paimonsql"],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise HarnessError(f"jar failed: {proc.stderr}")
        os.replace(built, out)
    return out


# --- the worker -------------------------------------------------------------------------------


class FlinkOracle:
    """A client of the long-lived Flink worker (see ``_worker.py``); one per process."""

    def __init__(self) -> None:
        """Start the worker (venv, jars and bridge are made first if needed)."""
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            raise HarnessError(
                "no JVM: the Flink oracle needs Java 11/17 (`java` on PATH or JAVA_HOME)"
            )
        python = flink_python()
        jars = [*flink_jars(), bridge_jar(python)]
        env = dict(os.environ)
        env["HADOOP_CLASSPATH"] = os.pathsep.join(str(j) for j in jars)
        env["TZ"] = "UTC"
        # One small JVM: the MiniCluster's jobs are tiny, and the machine has two cores.
        env["JVM_ARGS"] = "-Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Duser.timezone=UTC"
        env.pop("PYTHONPATH", None)
        # kept open for the worker's lifetime (its stderr), so no context manager
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115
            prefix="paimon-sql-flink-", suffix=".log", delete=False
        )
        self._proc = subprocess.Popen(
            [str(python), str(_HERE / "_worker.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
            text=True,
            encoding="utf-8",
        )
        self._lock = threading.Lock()
        ready = self._receive()
        if not ready.get("ok"):
            self.close()
            raise HarnessError(
                f"the Flink worker did not start: {ready.get('error')}\nlog: {self._log.name}"
            )

    def _receive(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise HarnessError(
                f"the Flink worker died; its log: {self._log.name}\n{self.log_tail()}"
            )
        return json.loads(line)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the worker's stderr (JVM and PyFlink output)."""
        return Path(self._log.name).read_text(errors="replace")[-chars:]

    def request(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its answer."""
        with self._lock:
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(payload) + "\n")
            self._proc.stdin.flush()
            return self._receive()

    def run(self, warehouse: Path | str, *statements: str) -> list[dict[str, Any]]:
        """Run Flink SQL statements in order in the catalog over `warehouse` (database ``db``).

        Returns one ``{"columns", "types", "rows"}`` per statement (rows in the Bridge's tagged
        JSON); raises `FlinkError` with Flink's message when a statement fails.
        """
        answer = self.request(
            {
                "op": "sql",
                "warehouse": str(Path(warehouse).resolve()),
                "statements": list(statements),
            }
        )
        if not answer.get("ok"):
            index = answer.get("index")
            failed = statements[index] if isinstance(index, int) else "?"
            raise FlinkError(f"Flink failed on: {failed}\n{answer.get('error')}")
        return answer["results"]

    def query(self, warehouse: Path | str, sql: str) -> tuple[list[str], list[dict[str, Any]]]:
        """One SELECT: its column names and rows as dicts of canonical values."""
        (result,) = self.run(warehouse, sql)
        columns = result["columns"]
        rows = [
            dict(zip(columns, (canonical_flink(v) for v in row), strict=True))
            for row in result["rows"]
        ]
        return columns, rows

    def read(
        self,
        warehouse: Path | str,
        table: str,
        *,
        snapshot: int | None = None,
        tag: str | None = None,
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """Flink's read of ``db.<table>`` (latest, a snapshot id or a tag): columns and rows."""
        options = []
        if snapshot is not None:
            options.append(f"'scan.snapshot-id' = '{int(snapshot)}'")
        if tag is not None:
            options.append("'scan.tag-name' = '" + tag.replace("'", "''") + "'")
        hint = f" /*+ OPTIONS({', '.join(options)}) */" if options else ""
        return self.query(warehouse, f"SELECT * FROM `{table.replace('`', '``')}`{hint}")  # noqa: S608

    def close(self) -> None:
        """Stop the worker (closing its stdin ends it)."""
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()


def oracle() -> FlinkOracle:
    """The process's one Flink oracle, started on first use and stopped at exit."""
    global _ORACLE
    with _LOCK:
        if _ORACLE is None:
            _ORACLE = FlinkOracle()
            atexit.register(_ORACLE.close)
        return _ORACLE


# --- canonical values -------------------------------------------------------------------------


def _double(value: float) -> list[str]:
    return ["double", repr(float(value))]


def _decimal(value: decimal.Decimal) -> list[str]:
    return ["decimal", format(decimal.Decimal(0) if value.is_zero() else value.normalize(), "f")]


def _sorted_map(pairs: list[list[Any]]) -> list[Any]:
    return ["map", sorted(pairs, key=lambda p: json.dumps(p, sort_keys=True))]


def canonical_flink(value: Any) -> Any:
    """A value of the Bridge's tagged JSON in canonical form (doubles by value, decimals
    normalised, map entries sorted).

    >>> canonical_flink(["double", "1.0E-5"]), canonical_flink(["decimal", "1.50"])
    (['double', '1e-05'], ['decimal', '1.5'])
    >>> canonical_flink(["map", [["b", 1], ["a", None]]])
    ['map', [['a', None], ['b', 1]]]
    """
    if not isinstance(value, list):
        return value
    tag, body = value[0], value[1]
    if tag == "double":
        return _double(float(body))
    if tag == "decimal":
        return _decimal(decimal.Decimal(body))
    if tag in ("row", "array"):
        return [tag, [canonical_flink(v) for v in body]]
    if tag == "map":
        return _sorted_map([[canonical_flink(k), canonical_flink(v)] for k, v in body])
    return value


def _timestamp_text(ns: int) -> str:
    """ISO text of nanoseconds since 1970, proleptic Gregorian at any year (Java reads year 0).

    >>> _timestamp_text(-62135769600 * 10**9)
    '0000-12-30T00:00:00.000000000'
    """
    seconds, fraction = divmod(ns, 1_000_000_000)
    days, second = divmod(seconds, 86_400)
    shifted = days + 719_468  # civil_from_days (days since 0000-03-01)
    era = shifted // 146_097
    of_era = shifted - era * 146_097
    year_of_era = (of_era - of_era // 1460 + of_era // 36_524 - of_era // 146_096) // 365
    of_year = of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * of_year + 2) // 153
    day = of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (month <= 2)
    return (
        f"{year:04d}-{month:02d}-{day:02d}T"
        f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}.{fraction:09d}"
    )


def _time_text(ns: int) -> str:
    seconds, fraction = divmod(ns, 1_000_000_000)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{fraction:09d}"


_UNIT_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def canonical_arrow(array: pa.Array) -> list[Any]:
    """The values of an Arrow array (paimon-sql's result) in the same canonical form, nanoseconds
    kept (timestamps and times are read as integers, never through ``datetime``).

    >>> import pyarrow as pa
    >>> canonical_arrow(pa.array([1_000_000_001, None], pa.timestamp("ns")))
    [['timestamp', '1970-01-01T00:00:01.000000001'], None]
    >>> canonical_arrow(pa.array([{"a": None}, None], pa.struct([("a", pa.int32())])))
    [['row', [None]], None]
    """
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        return [v for chunk in array.chunks for v in canonical_arrow(chunk)]
    t = array.type
    valid = array.is_valid().to_pylist()
    if pa.types.is_timestamp(t) or pa.types.is_time(t):
        unit = _UNIT_NS[t.unit]
        ints = array.view(pa.int64() if t.bit_width == 64 else pa.int32()).to_pylist()
        fmt = _timestamp_text if pa.types.is_timestamp(t) else _time_text
        return [
            ["timestamp" if fmt is _timestamp_text else "time", fmt(v * unit)] if ok else None
            for v, ok in zip(ints, valid, strict=True)
        ]
    if pa.types.is_struct(t):
        children = [canonical_arrow(_struct_child(array, i)) for i in range(t.num_fields)]
        return [["row", [c[i] for c in children]] if ok else None for i, ok in enumerate(valid)]
    if pa.types.is_map(t):
        offsets = array.offsets.to_pylist()
        keys, items = canonical_arrow(array.keys), canonical_arrow(array.items)
        return [
            _sorted_map([[keys[j], items[j]] for j in range(offsets[i], offsets[i + 1])])
            if ok
            else None
            for i, ok in enumerate(valid)
        ]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = array.offsets.to_pylist()
        values = canonical_arrow(array.values)
        return [
            ["array", values[offsets[i] : offsets[i + 1]]] if ok else None
            for i, ok in enumerate(valid)
        ]
    return [_scalar(v) for v in array.to_pylist()]


def _struct_child(array: pa.Array, index: int) -> pa.Array:
    child = array.field(index)
    return child.slice(array.offset, len(array))


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, decimal.Decimal):
        return _decimal(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ["binary", bytes(value).hex()]
    if isinstance(value, _dt.date):
        return ["date", value.isoformat()]
    raise TypeError(f"cannot normalise {type(value).__name__} value {value!r}")


def arrow_rows(table: pa.Table) -> tuple[list[str], list[dict[str, Any]]]:
    """An Arrow table's column names and rows as dicts of canonical values."""
    columns = list(table.column_names)
    values = [canonical_arrow(table.column(i)) for i in range(table.num_columns)]
    return columns, [
        dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)
    ] if values else []


def our_rows(warehouse: Path | str, table: str = "t") -> list[dict[str, Any]]:
    """paimon-sql's read of ``db.<table>`` in a fresh session, as canonical rows."""
    import paimon_sql

    session = paimon_sql.connect(warehouse)
    try:
        return arrow_rows(session.sql(f'SELECT * FROM db."{table}"').to_arrow_table())[1]  # noqa: S608
    finally:
        session.close()


def hash_index(warehouse: Path | str, table: str = "t") -> dict[tuple[Any, int], list[int]]:
    """(first partition value, bucket) -> the sorted key hashes of the bucket's current HASH file.

    A dynamic-bucket table's index as paimon-sql reads it (``db.<table>``), whoever wrote it.
    """
    import paimon_sql
    from paimon_sql.format.binary_row import decode_row
    from paimon_sql.format.hash_index import decode_hashes
    from paimon_sql.write.writer import TableWriter

    session = paimon_sql.connect(warehouse)
    try:
        t = session.table(f"db.{table}")
        types = [t.latest_schema.field(k).type for k in t.latest_schema.partition_keys]
        return {
            (decode_row(part, types)[0], bucket): sorted(decode_hashes(blob))
            for (part, bucket), blob in TableWriter(None, t).hash_index().items()
        }
    finally:
        session.close()


def assert_same_rows(
    actual: list[dict[str, Any]], expected: list[dict[str, Any]], *, context: str = ""
) -> None:
    """Fail, listing the differing rows, unless both hold the same canonical rows in any order."""
    got = Counter(json.dumps(r, sort_keys=True) for r in actual)
    want = Counter(json.dumps(r, sort_keys=True) for r in expected)
    if got == want:
        return
    missing, extra = list((want - got).elements()), list((got - want).elements())
    lines = [f"{context}: rows differ ({len(actual)} read, {len(expected)} expected)"]
    lines += [f"  missing:    {r}" for r in missing[:10]] + (
        [f"  ... {len(missing) - 10} more"] if len(missing) > 10 else []
    )
    lines += [f"  unexpected: {r}" for r in extra[:10]] + (
        [f"  ... {len(extra) - 10} more"] if len(extra) > 10 else []
    )
    raise AssertionError("\n".join(lines))
