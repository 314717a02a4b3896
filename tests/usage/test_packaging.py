"""The wheel a user installs works on its own: built from this checkout, installed into a fresh
virtualenv outside the repository (dependencies from the package index), and used the way the README
says.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from typing import TYPE_CHECKING

import pytest

from tests.fixtures import REPO

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow

_SCRIPT = textwrap.dedent(
    """
    import sys, duckdb, paimon_sql
    assert "pyspark" not in sys.modules, "import paimon_sql must not import pyspark"
    assert "site-packages" in paimon_sql.__file__, paimon_sql.__file__
    wh = sys.argv[1]
    s = paimon_sql.connect(wh, create=True)
    s.sql("CREATE DATABASE d")
    s.sql("CREATE TABLE d.t (id BIGINT, v STRING) WITH ('primary-key' = 'id', 'bucket' = '1')")
    s.sql("INSERT INTO d.t VALUES (1, 'a'), (2, 'b')")
    s.sql("INSERT INTO d.t VALUES (2, 'c')")
    print(sorted(s.sql("SELECT * FROM d.t").fetchall()))
    con = duckdb.connect()
    paimon_sql.install(con, wh)
    print(con.sql("SELECT count(*) FROM paimon_scan('d.t')").fetchall())
    """
)


def test_package_list_matches_the_folders() -> None:
    """pyproject lists the packages by hand (to map functions/ into the wheel): it must not miss
    one.
    """
    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "paimon_sql").rglob("__init__.py")
    }
    assert found | {"paimon_sql.functions"} == listed


def test_wheel_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("paimon_sql-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True
    )
    out = subprocess.run(
        [python, "-c", _SCRIPT, str(tmp_path / "wh")],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert out == ["[(1, 'a'), (2, 'c')]", "[(2,)]"]
    shell = subprocess.run(
        [venv / "bin" / "paimon-sql", str(tmp_path / "wh"), "-c", "SELECT v FROM d.t WHERE id = 2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert shell.returncode == 0, shell.stderr
    assert "c" in shell.stdout
