"""The shell's lake-debugging commands: ``.tree`` and ``.check`` (exit code 1 on a damaged table),
and the SQL debugging functions, on a Java-written table copied into a warehouse."""

from __future__ import annotations

import shutil

from tests.fixtures import FIXTURES
from tests.usage.test_shell import _shell

NAME = "pk_table_scan_and_read_dv"
SOURCE = FIXTURES / "paimon-cpp" / "test" / "test_data" / "parquet" / f"{NAME}.db" / NAME


def test_tree_check_and_debug_functions(tmp_path):
    table = tmp_path / "wh" / f"{NAME}.db" / NAME
    shutil.copytree(SOURCE, table)
    ident = f"{NAME}.{NAME}"
    done = _shell(
        tmp_path,
        tmp_path / "wh",
        "-c",
        f".tree {ident} 4\n.check {ident} deep\n"
        f"SELECT verdict FROM paimon_explain_key('{ident}', {{'f0': 'Alice', 'f1': 10, 'f2': 1}});",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("snapshot 4 (COMPACT, schema 0, ")
    assert "index manifest index-manifest-" in done.stdout
    assert f"{ident}: intact" in done.stdout
    assert "deleted by deletion vector" in done.stdout

    victim = sorted(table.glob("f1=20/bucket-0/*.parquet"))[0]
    victim.unlink()
    done = _shell(tmp_path, tmp_path / "wh", "-c", f".check {ident}")
    assert done.returncode == 1
    assert (
        f"error: data file: {victim.relative_to(table)} (version 1): the data file is missing"
        in (done.stdout)
    )
    assert f"{ident} is damaged: 1 problems" in done.stderr

    done = _shell(tmp_path, tmp_path / "wh", "-c", f".tree {ident} 99")
    assert done.returncode == 1
    assert "snapshot 99" in done.stderr
