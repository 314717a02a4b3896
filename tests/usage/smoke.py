"""What an installed paimon-sql must do, run by another interpreter (a fresh or lowest-versions
virtualenv; tests/usage/test_packaging.py): connect, create, insert, select, install on a plain
DuckDB connection, the shell, and a read of Java-written tables (Parquet + deletion vectors, ORC,
Avro) checked against the rows Java returned (``java_truth.json``).

Usage: ``python smoke.py WORK_FOLDER JAVA_FIXTURE_FOLDER``; prints ``ok`` and the versions it ran
with. Only the public API and the installed ``paimon-sql`` command: nothing of this checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path


def _smoke(work: Path, fixture: Path) -> None:
    import duckdb

    import paimon_sql

    assert "site-packages" in paimon_sql.__file__, paimon_sql.__file__
    assert "pyspark" not in sys.modules, "import paimon_sql must not import pyspark"
    wh = str(work / "wh")
    s = paimon_sql.connect(wh, create=True)
    s.sql("CREATE DATABASE d")
    s.sql(
        "CREATE TABLE d.t (id BIGINT, v STRING, ts TIMESTAMP_LTZ) "
        "WITH ('primary-key' = 'id', 'bucket' = '1')"
    )
    s.sql("INSERT INTO d.t VALUES (1, 'a', TIMESTAMPTZ '2024-01-01 00:00:00+00'), (2, 'b', NULL)")
    s.sql("INSERT INTO d.t VALUES (2, 'c', NULL)")
    rows = s.sql("SELECT id, v, ts IS NULL FROM d.t ORDER BY id").fetchall()
    assert rows == [(1, "a", False), (2, "c", True)], rows
    assert s.sql("SELECT ts FROM d.t WHERE id = 1").fetchall()[0][0].year == 2024  # pytz
    s.close()

    con = duckdb.connect()
    paimon_sql.install(con, wh)
    assert con.sql("SELECT count(*) FROM paimon_scan('d.t')").fetchall() == [(2,)]
    con.close()

    shell = shutil.which("paimon-sql", path=str(Path(sys.executable).parent))
    assert shell is not None, "the paimon-sql command is not installed"
    done = subprocess.run(
        [shell, wh, "--format", "csv", "-c", "SELECT v FROM d.t WHERE id = 2; .tables"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["v", "c", "d.t"], done.stdout

    truth = json.loads((fixture / "java_truth.json").read_text())
    java = paimon_sql.connect(str(fixture / "warehouse"))
    for table in ("pk_dv", "pk_orc_2b", "pk_avro"):  # Parquet + DVs, ORC, Avro
        got = java.sql(f"SELECT id, name, v FROM db.{table} ORDER BY id").fetchall()  # noqa: S608
        want = [(r["id"], r["name"], r["v"]) for r in truth[table]]
        assert got == want, (table, got, want)
    java.close()


def main() -> None:
    work, fixture = Path(sys.argv[1]), Path(sys.argv[2])
    _smoke(work, fixture)
    names = ("duckdb", "pyarrow", "sqlglot", "numpy", "fastavro", "pyroaring", "cramjam")
    print("ok", " ".join(f"{n}=={metadata.version(n)}" for n in names))


if __name__ == "__main__":
    main()
