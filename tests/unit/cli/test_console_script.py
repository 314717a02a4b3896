"""The installed ``paimon-sql`` command and ``python -m paimon_sql.cli``, run as processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.cli.conftest import PK_DEDUP_TABLE

SCRIPT = Path(sys.executable).with_name("paimon-sql")

pytestmark = pytest.mark.slow  # each run starts Python and imports DuckDB, pyarrow and sqlglot


def _run(*args, stdin=None):
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.skipif(not SCRIPT.exists(), reason="paimon-sql is not installed in this environment")
def test_console_script_renders_a_java_written_table(java_warehouse):
    done = _run(str(SCRIPT), str(java_warehouse), "-c", "SELECT * FROM db.pk_dedup ORDER BY id;")
    assert (done.returncode, done.stdout, done.stderr) == (0, PK_DEDUP_TABLE, "")


def test_module_script_error_exit_code_and_no_traceback(java_warehouse, tmp_path):
    script = tmp_path / "q.sql"
    script.write_text("SELECT count(*) AS n FROM db.pk_dedup;\n\nSELECT * FROM db.pk_nope;\n")
    done = _run(sys.executable, "-m", "paimon_sql.cli", str(java_warehouse), "-f", str(script))
    assert done.returncode == 1
    assert done.stdout == " n\n---\n 4\n(1 row)\n"
    assert done.stderr.startswith("Error: table db.pk_nope not found")
    assert done.stderr.endswith(f" ({script}:3)\n")
    assert "Traceback" not in done.stderr


def test_piped_statements_as_json_lines(java_warehouse):
    done = _run(
        sys.executable,
        "-m",
        "paimon_sql.cli",
        str(java_warehouse),
        "--format",
        "json",
        stdin="SELECT id, v\nFROM db.pk_dedup\nWHERE id > 2\nORDER BY id;\n",
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"id": 3, "v": 30},
        {"id": 4, "v": 40},
    ]
    assert done.stderr == ""  # no spinner: stderr is not a terminal


def test_package_runs_as_the_shell(java_warehouse):
    done = _run(
        sys.executable,
        "-m",
        "paimon_sql",
        str(java_warehouse),
        "-c",
        "SELECT * FROM db.pk_dedup ORDER BY id;",
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, PK_DEDUP_TABLE, "")


def test_bad_option_is_a_usage_error(tmp_path):
    done = _run(sys.executable, "-m", "paimon_sql.cli", str(tmp_path), "--format", "xml")
    assert done.returncode == 2
    assert "invalid choice: 'xml'" in done.stderr
