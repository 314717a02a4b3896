"""Apache Paimon's Java API (newest reachable release) as a third test oracle.

`oracle()` gives the one `JavaApiOracle` of this process: a JVM running ``Bridge20.java`` over
Paimon's own Java API (``CatalogFactory`` filesystem catalog, ``newBatchWriteBuilder()``,
``newReadBuilder()``), no engine in between. JSON lines on stdin/stdout:

* ``create(warehouse, table, fields, ...)``: types in the JSON form of Paimon's schema files;
* ``write(warehouse, table, rows, kinds=..., overwrite=..., compact=...)``: one commit;
* ``read(warehouse, table, snapshot=..., tag=...)``: columns and rows in the Flink bridge's
  lossless tagged JSON (so `tests.interop.flink.harness.canonical_flink` / `assert_same_rows`
  compare them with paimon-sql's Arrow results, nanoseconds kept);
* ``snapshots(warehouse, table)``: ``[{"id", "kind", "schema"}]``.

Which Paimon: ``paimon-core:2.0.0`` is the only 2.0 artifact Maven serves here (``paimon-common``,
``paimon-api``, ``paimon-format``, ``paimon-bundle`` and the parent POM 2.0.0 are not), and 2.0's
core does not run on 1.4's common classes (``NoClassDefFoundError:
org/apache/paimon/fs/cache/CachingFileIO`` on catalog creation; ``jdeps`` lists 39 classes of
paimon-core 2.0.0 missing from paimon-bundle 1.4.2). So the oracle runs ``paimon-bundle:1.4.2``,
the newest complete Paimon served, and `PAIMON_VERSION` says so; ``probe_paimon_20()`` repeats
the 2.0 attempt and returns its error, so a machine that serves 2.0 shows it at once.

Jars are resolved once into ``${PAIMON_SQL_CACHE:-~/.cache/paimon-sql}/jars/paimon-<v>/`` with a
generated POM and ``mvn dependency:copy-dependencies`` under a file lock; the bridge is compiled
with ``javac`` and cached by its source's hash. Nothing skips: a missing JDK or Maven raises
`HarnessError`.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import Any

from tests.interop.harness import HarnessError, cache_dir

__all__ = ["PAIMON_VERSION", "JavaApiError", "JavaApiOracle", "oracle", "probe_paimon_20"]

PAIMON_VERSION = "1.4.2"
# paimon-bundle holds paimon-api/common/core/format with their third-party classes shaded; Hadoop
# (the filesystem catalog's FileIO and Parquet's codecs) needs log4j 1.x's Level class.
ARTIFACTS = (
    ("org.apache.paimon", "paimon-bundle", PAIMON_VERSION),
    ("org.apache.flink", "flink-shaded-hadoop-2-uber", "2.8.3-10.0"),
    ("org.slf4j", "slf4j-api", "1.7.36"),
    ("org.slf4j", "slf4j-nop", "1.7.36"),
    ("log4j", "log4j", "1.2.17"),
)
_HERE = Path(__file__).resolve().parent
_ORACLE: JavaApiOracle | None = None
_LOCK = threading.Lock()


class JavaApiError(RuntimeError):
    """Paimon's Java API refused or failed a request; the message holds the Java stack trace.

    Not an AssertionError, so a strict xfail is never satisfied by the oracle failing instead.
    """


def _mvn() -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError(
            "`mvn` is not on PATH: the Paimon Java-API oracle resolves its jars once"
        )
    return mvn


def _pom(artifacts: tuple[tuple[str, str, str], ...]) -> str:
    deps = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>"
        "</dependency>"
        for g, a, v in artifacts
    )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>paimonsql</groupId><artifactId>java-api-oracle</artifactId><version>1</version>"
        f"<packaging>pom</packaging><dependencies>{deps}</dependencies></project>"
    )


def paimon_jars() -> list[Path]:
    """The oracle's jars in ``<cache>/jars/paimon-<version>/``, resolved with Maven on first use."""
    folder = cache_dir() / "jars" / f"paimon-{PAIMON_VERSION}"
    wanted = sorted(f"{a}-{v}.jar" for _, a, v in ARTIFACTS)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".paimon-{PAIMON_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(zipfile.is_zipfile(folder / name) for name in wanted):
            _resolve(folder)
    return [folder / name for name in wanted]


def _resolve(folder: Path) -> None:
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        (Path(tmp) / "pom.xml").write_text(_pom(ARTIFACTS))
        out = Path(tmp) / "jars"
        cmd = [
            _mvn(),
            "-B",
            "-q",
            "dependency:copy-dependencies",
            "-DexcludeTransitive=true",
            f"-DoutputDirectory={out}",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp)
        if proc.returncode != 0:
            raise HarnessError(
                f"Maven could not resolve the Paimon {PAIMON_VERSION} oracle's jars; ran: "
                f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
            )
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(out, folder)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise HarnessError(f"the Paimon Java-API oracle needs a JDK: `{name}` is not on PATH")
    return found


def bridge_jar(jars: list[Path]) -> Path:
    """``Bridge20.java`` compiled against the oracle's jars, cached by source and version."""
    source = _HERE / "Bridge20.java"
    digest = hashlib.sha256(source.read_bytes() + PAIMON_VERSION.encode()).hexdigest()[:16]
    out = cache_dir() / "jars" / f"paimon-sql-java-api-bridge-{digest}.jar"
    if zipfile.is_zipfile(out):
        return out
    classpath = os.pathsep.join(str(j) for j in jars)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        proc = subprocess.run(
            [
                _tool("javac"),
                "--release",
                "11",
                "-nowarn",
                "-cp",
                classpath,
                "-d",
                tmp,
                str(source),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise HarnessError(f"javac failed on {source}:\n{proc.stdout}\n{proc.stderr}")
        built = Path(tmp) / out.name
        proc = subprocess.run(
            [_tool("jar"), "cf", str(built), "-C", tmp, "paimonsql"],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise HarnessError(f"jar failed: {proc.stderr}")
        os.replace(built, out)
    return out


class JavaApiOracle:
    """A client of the long-lived bridge JVM; one per process."""

    def __init__(self, classpath: list[Path] | None = None) -> None:
        """Start the JVM (jars resolved and the bridge compiled first if needed)."""
        if classpath is None:
            jars = paimon_jars()
            classpath = [bridge_jar(jars), *jars]
        # kept open for the JVM's lifetime (its stderr), so no context manager
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115
            prefix="paimon-sql-java-api-", suffix=".log", delete=False
        )
        cmd = [
            _tool("java"),
            "-Xmx768m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Duser.timezone=UTC",
            "-cp",
            os.pathsep.join(str(p) for p in classpath),
            "paimonsql.Bridge20",
        ]
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env={**os.environ, "TZ": "UTC"},
            text=True,
            encoding="utf-8",
        )
        self._lock = threading.Lock()
        ready = self._receive()
        if not ready.get("ok"):
            self.close()
            raise HarnessError(f"the Java-API bridge did not start; log: {self._log.name}")
        self.version = self._call({"op": "version"})["version"]

    def _receive(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            tail = Path(self._log.name).read_text(errors="replace")[-4000:]
            raise HarnessError(f"the Java-API bridge died; its log: {self._log.name}\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _call(self, payload: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(payload) + "\n")
            self._proc.stdin.flush()
            answer = self._receive()
        if not answer.get("ok"):
            raise JavaApiError(
                f"Paimon {PAIMON_VERSION} failed on {payload['op']}: {answer.get('error')}"
            )
        return answer

    def create(
        self,
        warehouse: Path | str,
        table: str,
        fields: list[tuple[str, Any]],
        *,
        partition_keys: tuple[str, ...] = (),
        primary_keys: tuple[str, ...] = (),
        options: dict[str, str] | None = None,
    ) -> None:
        """Create ``db.<table>`` with Paimon's ``Schema.Builder`` (types as in schema files)."""
        self._call(
            {
                "op": "create",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
                "fields": [{"name": n, "type": t} for n, t in fields],
                "partition_keys": list(partition_keys),
                "primary_keys": list(primary_keys),
                "options": options or {},
            }
        )

    def write(
        self,
        warehouse: Path | str,
        table: str,
        rows: list[list[Any]],
        *,
        kinds: list[str] | None = None,
        overwrite: dict[str, str] | None = None,
        compact: bool = False,
        write_cols: list[str] | None = None,
        first_row_id: int | None = None,
    ) -> None:
        """One batch write and commit (row kinds ``+I``/``-U``/``+U``/``-D``; ``overwrite`` a
        static partition, ``{}`` for the whole table; ``compact`` fully compacts every bucket;
        ``write_cols`` writes only those columns, as data-evolution tables allow; ``first_row_id``
        places the new files at that row id, so they replace those columns of rows written before,
        as a data-evolution update does)."""
        self._call(
            {
                "op": "write",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
                "rows": rows,
                "kinds": kinds,
                "overwrite": overwrite,
                "compact": compact,
                "write_cols": write_cols,
                "first_row_id": first_row_id,
            }
        )

    def read(
        self,
        warehouse: Path | str,
        table: str,
        *,
        snapshot: int | None = None,
        tag: str | None = None,
        database: str = "db",
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """Paimon's read of ``<database>.<table>`` (``table`` may name a branch, ``t$branch_b``):
        column names and rows of canonical values (a BLOB as its bytes, tagged ``binary`` like
        VARBINARY)."""
        from tests.interop.flink.harness import canonical_flink

        result = self._call(
            {
                "op": "read",
                "warehouse": str(Path(warehouse).resolve()),
                "database": database,
                "table": table,
                "snapshot": snapshot,
                "tag": tag,
            }
        )["result"]
        columns = result["columns"]
        rows = [
            dict(zip(columns, (canonical_flink(v) for v in row), strict=True))
            for row in result["rows"]
        ]
        return columns, rows

    def create_global_index(
        self, warehouse: Path | str, table: str, column: str, index_type: str = "bitmap"
    ) -> int:
        """Java 1.4's global index (``bitmap`` or ``btree``) on `column` of a row-tracking table,
        built as Spark's ``create_global_index`` procedure builds it and committed as one
        snapshot: the number of index files."""
        answer = self._call(
            {
                "op": "create_global_index",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
                "column": column,
                "index_type": index_type,
            }
        )
        files: int = answer["files"]
        return files

    def truncate(self, warehouse: Path | str, table: str) -> None:
        """``BatchTableCommit.truncateTable`` (Spark's TRUNCATE TABLE): one OVERWRITE snapshot."""
        self._call({"op": "truncate", "warehouse": str(Path(warehouse).resolve()), "table": table})

    def query(
        self, warehouse: Path | str, table: str, column: str, value: Any
    ) -> tuple[bool, list[dict[str, Any]]]:
        """Java's filtered scan ``column = value`` (``value`` None: ``column IS NULL``): whether
        the plan came from a global index (a data-evolution table's scan), and the rows read."""
        from tests.interop.flink.harness import canonical_flink

        condition = {"is_null": True} if value is None else {"equal": value}
        result = self._call(
            {
                "op": "read",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
                "filter": {"column": column, **condition},
            }
        )["result"]
        columns = result["columns"]
        rows = [
            dict(zip(columns, (canonical_flink(v) for v in row), strict=True))
            for row in result["rows"]
        ]
        return bool(result["indexed"]), rows

    def compact_data_evolution(self, warehouse: Path | str, table: str) -> int:
        """Java's data-evolution compaction (``DataEvolutionCompactCoordinator``, one commit):
        the number of compaction tasks it ran."""
        answer = self._call(
            {
                "op": "compact_data_evolution",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
            }
        )
        tasks: int = answer["tasks"]
        return tasks

    def alter(self, warehouse: Path | str, table: str, changes: list[dict[str, Any]]) -> None:
        """One ``Catalog.alterTable``: ``{"add", "type"}``, ``{"rename": [old, new]}``,
        ``{"drop"}``, ``{"retype", "type"}``, ``{"set", "value"}``."""
        self._call(
            {
                "op": "alter",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
                "changes": changes,
            }
        )

    def tag(self, warehouse: Path | str, table: str, tag: str, snapshot: int) -> None:
        """``FileStoreTable.createTag(tag, snapshot)``."""
        self._call(
            {
                "op": "tag",
                "warehouse": str(Path(warehouse).resolve()),
                "table": table,
                "tag": tag,
                "snapshot": snapshot,
            }
        )

    def snapshots(
        self, warehouse: Path | str, table: str, *, database: str = "db"
    ) -> list[dict[str, Any]]:
        """``[{"id", "kind", "schema"}]`` of every snapshot Paimon lists."""
        answer = self._call(
            {
                "op": "snapshots",
                "warehouse": str(Path(warehouse).resolve()),
                "database": database,
                "table": table,
            }
        )
        snapshots: list[dict[str, Any]] = answer["snapshots"]
        return snapshots

    def close(self) -> None:
        """Stop the JVM (closing its stdin ends it)."""
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()


def oracle() -> JavaApiOracle:
    """The process's one Java-API oracle, started on first use and stopped at exit."""
    global _ORACLE
    with _LOCK:
        if _ORACLE is None:
            _ORACLE = JavaApiOracle()
            atexit.register(_ORACLE.close)
        return _ORACLE


def probe_paimon_20(warehouse: Path) -> str:
    """Try Paimon 2.0 (``paimon-core:2.0.0`` first on the class path, before 1.4.2's bundle):
    the error it gives creating a catalog, or ``""`` if 2.0 runs here."""
    jars = paimon_jars()
    folder = cache_dir() / "jars" / "paimon-2.0"
    core = folder / "paimon-core-2.0.0.jar"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not zipfile.is_zipfile(core):
            cmd = [
                _mvn(),
                "-B",
                "-q",
                "dependency:copy",
                "-Dartifact=org.apache.paimon:paimon-core:2.0.0",
                f"-DoutputDirectory={folder}",
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=folder)
            if proc.returncode != 0:
                return f"Maven does not serve paimon-core 2.0.0: {proc.stdout[-500:]}"
    probe = JavaApiOracle([bridge_jar(jars), core, *jars])
    try:
        probe.create(warehouse, "probe", [("id", "INT")])
        probe.write(warehouse, "probe", [[1]])
    except JavaApiError as err:
        return str(err)
    finally:
        probe.close()
    return ""
