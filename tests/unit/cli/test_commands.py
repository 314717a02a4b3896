"""Dot-commands and error reports on a real `Shell` over a warehouse the test writes."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.cli._commands import dot_command
from paimon_sql.cli._shell import Settings, Shell, report


@pytest.fixture
def shell(tmp_path):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id INT, v STRING) WITH ('bucket'='1', 'primary-key'='id')")
    session.sql("INSERT INTO db.t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    shell = Shell(session, Settings(), stdout=io.StringIO(), stderr=io.StringIO())
    yield shell
    shell.close()
    session.close()


def _take(stream):
    text = stream.getvalue()
    stream.seek(0)
    stream.truncate()
    return text


def test_tables_mode_and_maxrows(shell):
    assert dot_command(shell, ".tables")
    assert _take(shell.stdout) == "db.t\n"
    assert dot_command(shell, ".mode")
    assert _take(shell.stdout) == "table\n"
    dot_command(shell, ".maxrows 1")
    assert shell.run("SELECT id FROM db.t ORDER BY id;")
    assert _take(shell.stdout) == " id\n----\n  1\n(3 rows, first 1 shown)\n"
    dot_command(shell, ".mode json")
    assert shell.run("SELECT id FROM db.t WHERE id = 2")
    assert _take(shell.stdout) == '{"id": 2}\n'


def test_output_file_then_back_to_the_screen(shell, tmp_path):
    target = tmp_path / "result file.csv"
    dot_command(shell, ".mode csv")
    dot_command(shell, f'.output "{target}"')
    assert shell.run("SELECT id FROM db.t WHERE id < 3 ORDER BY id; SELECT 'x' AS s")
    dot_command(shell, ".output")
    assert target.read_text() == "id\n1\n2\ns\nx\n"
    assert shell.run("SELECT 1 AS n")
    assert _take(shell.stdout) == "n\n1\n"


def test_parquet_mode_needs_a_file_and_replaces_it_per_result(shell, tmp_path):
    assert dot_command(shell, ".mode parquet")
    assert _take(shell.stderr) == "Error: parquet output needs a file: .output FILE first\n"
    target = tmp_path / "out.parquet"
    dot_command(shell, f".output {target}")
    dot_command(shell, ".mode parquet")
    assert shell.run("SELECT * FROM db.t ORDER BY id")
    assert pq.read_table(target).column("v").to_pylist() == ["one", "two", "three"]
    assert dot_command(shell, ".output")
    assert _take(shell.stderr).startswith("Error: parquet can't go to the screen")


def test_timer_and_read(shell, tmp_path):
    script = tmp_path / "more.sql"
    script.write_text("INSERT INTO db.t VALUES (4, 'four');\nSELECT count(*) AS n FROM db.t;\n")
    dot_command(shell, ".timer on")
    dot_command(shell, ".mode csv")
    dot_command(shell, f".read {script}")
    assert _take(shell.stdout) == "count\n1\nn\n4\n"
    assert _take(shell.stderr).count("Run Time: ") == 2
    dot_command(shell, ".read nowhere.sql")
    assert _take(shell.stderr) == "Error: No such file or directory: nowhere.sql\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (".timer maybe", "Error: usage: .timer on|off\n"),
        (".maxrows many", "Error: usage: .maxrows N (0: no limit)\n"),
        (".mode xml", "Error: usage: .mode table|csv|json|parquet\n"),
        (".output 'unbalanced", "Error: .output 'unbalanced: No closing quotation\n"),
        (".frobnicate", "Error: unknown command .frobnicate (.help lists the commands)\n"),
    ],
)
def test_bad_dot_commands_say_so_and_keep_the_shell(shell, line, message):
    assert dot_command(shell, line) is True
    assert _take(shell.stderr) == message


def test_failing_dot_commands_report_one_line(shell, tmp_path):
    assert dot_command(shell, f".output {tmp_path}/no/such/folder/out.txt")
    assert _take(shell.stderr) == (
        f"Error: No such file or directory: {tmp_path}/no/such/folder/out.txt\n"
    )
    assert dot_command(shell, ".tables nodb")
    assert _take(shell.stderr).startswith("Error: ")
    assert shell.run("SELECT 1 AS n")  # results still reach the screen
    assert _take(shell.stdout) == " n\n---\n 1\n(1 row)\n"


def test_a_failing_statement_leaves_the_shell_usable(shell):
    assert not shell.run("SELECT * FROM db.t VERSION AS OF 42")
    assert _take(shell.stderr).startswith("Error: snapshot 42 of table db.t does not exist")
    assert shell.run("SELECT count(*) AS n FROM db.t")
    assert _take(shell.stdout).endswith("(1 row)\n")


def test_bugs_are_reported_as_such_and_traced_with_debug():
    stream = io.StringIO()
    try:
        {}["missing"]
    except KeyError as err:
        report(err, stream, debug=True)
    text = stream.getvalue()
    assert text.startswith("Traceback (most recent call last):")
    assert text.endswith("Error: internal error: KeyError: 'missing'\n")
