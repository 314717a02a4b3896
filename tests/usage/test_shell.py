"""The ``paimon-sql`` shell as a user runs it: a subprocess, its exit code, stdout and stderr, and
real signals (Ctrl-C is SIGINT).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from importlib import metadata

import pytest

import paimon_sql
from tests.fixtures import REPO

SETUP = (
    "CREATE DATABASE d;\n"
    "CREATE TABLE d.t (id BIGINT, v STRING) WITH ('bucket' = '2', 'primary-key' = 'id');\n"
    "INSERT INTO d.t VALUES (1, 'a'), (2, 'b');\n"
)
#: Long enough to be interrupted mid-way on this 2-core machine (about 10 s; 1 s on a fast one).
BIG_INSERT = "INSERT INTO d.t SELECT i, md5(i::VARCHAR) FROM range(3000000) r(i)"


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_SQL_PROGRESS")}
    return dict(env, PYTHONPATH=str(REPO), **extra)


def _shell(cwd, *args, stdin=None, **env):
    return subprocess.run(
        [sys.executable, "-m", "paimon_sql.cli", *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=300,
        check=False,
    )


@pytest.fixture
def wh(tmp_path):
    done = _shell(tmp_path, tmp_path / "wh", "--create", "-c", SETUP)
    assert done.returncode == 0, done.stderr
    return tmp_path / "wh"


def test_version(tmp_path):
    done = _shell(tmp_path, "--version")
    python = ".".join(map(str, sys.version_info[:3]))
    try:
        ours = metadata.version("paimon-sql")
    except metadata.PackageNotFoundError:
        ours = "(source)"
    expected = f"paimon-sql {ours} (duckdb {metadata.version('duckdb')}, python {python})\n"
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")


def test_dot_commands_in_c(wh):
    done = _shell(
        wh.parent,
        wh,
        "-c",
        ".mode csv\nSELECT v FROM d.t ORDER BY id; .tables\n.mode json; SELECT 1 AS n",
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == 'v\na\nb\nd.t\n{"n": 1}\n'


def test_schema_shows_the_create_statement_that_makes_the_table_again(wh, tmp_path):
    done = _shell(wh.parent, wh, "-c", ".schema d.t")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("CREATE TABLE `d`.`t` (\n  `id` BIGINT NOT NULL,")
    again = _shell(
        tmp_path, tmp_path / "copy", "--create", "-c", "CREATE DATABASE d;\n" + done.stdout
    )
    assert again.returncode == 0, again.stderr
    same = _shell(tmp_path, tmp_path / "copy", "-c", ".schema d")
    assert same.stdout == done.stdout


def test_dot_commands_in_a_file_and_the_failing_line(wh, tmp_path):
    script = tmp_path / "report.sql"
    script.write_text(
        "-- a report\n.mode csv\nSELECT count(*) AS n\nFROM d.t;\n.maxrows 5\n"
        ".bogus x\nSELECT 'never';\n"
    )
    done = _shell(tmp_path, wh, "-f", script)
    assert done.returncode == 1
    assert done.stdout == "n\n2\n"
    assert done.stderr == f"Error: unknown command .bogus (.help lists the commands) ({script}:6)\n"


def test_dot_commands_from_piped_stdin(wh, tmp_path):
    out = tmp_path / "out.csv"
    stdin = (
        f".mode csv\n.output {out}\nSELECT id FROM d.t ORDER BY id;\n.output\n"
        ".tables d\n.quit\nSELECT 1;\n"
    )
    done = _shell(tmp_path, wh, stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, "d.t\n", "")
    assert out.read_text() == "id\n1\n2\n"


def test_progress_is_off_when_stderr_is_not_a_terminal(wh):
    # auto (the default): stderr is a pipe here, so no spinner even for a statement past the delay
    done = _shell(
        wh.parent, wh, "-c", BIG_INSERT.replace("3000000", "200000"), PAIMON_SQL_PROGRESS_DELAY="0"
    )
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.slow
@pytest.mark.parametrize("how", ["flag", "env"])
def test_progress_percentage_on_a_long_write(wh, how):
    args = ["--progress", "on"] if how == "flag" else []
    env = {"PAIMON_SQL_PROGRESS_DELAY": "0"} | (
        {"PAIMON_SQL_PROGRESS": "on"} if how == "env" else {}
    )
    done = _shell(wh.parent, wh, *args, "-c", BIG_INSERT.replace("3000000", "1000000"), **env)
    assert done.returncode == 0, done.stderr
    shown = [int(p) for p in re.findall(r"\d+\.\ds (\d+)%", done.stderr)]
    assert shown, done.stderr[-500:]
    assert all(0 <= p <= 100 for p in shown)
    assert shown == sorted(shown) or max(shown) > min(shown)  # it moves
    assert done.stderr.endswith("\x1b[K")  # erased at the end
    assert paimon_sql.connect(wh).sql("SELECT count(*) FROM d.t").fetchall() == [(1000000,)]


class _Running:
    """The shell as a child process; its stderr is read as it comes (the spinner ends no line)."""

    def __init__(self, cwd, *args, **env):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "paimon_sql.cli", *map(str, args)],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(**env),
        )
        self.stderr = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        assert self.process.stderr is not None
        while chunk := os.read(self.process.stderr.fileno(), 4096):
            self.stderr += chunk

    def wait_for(self, condition, timeout=120):
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.process.poll() is None, f"ended first: {self.stderr[-300:]!r}"
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.005)

    def interrupt(self):
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=120)
        self._reader.join(timeout=10)
        lines = re.split(r"\r\x1b\[K|\n", self.stderr.decode())
        # nothing but the spinner and the message: no error, traceback or binding leak report
        # (the statement's thread still held DuckDB objects at exit when it went unwaited)
        assert not [x for x in lines if re.search("Error|Traceback|leaked", x)], lines
        return code, lines


def _snapshots(wh):
    return sorted(p.name for p in (wh / "d.db" / "t" / "snapshot").glob("snapshot-*"))


@pytest.mark.slow
def test_ctrl_c_before_the_commit_writes_nothing(wh):
    shell = _Running(
        wh.parent, wh, "--progress", "on", "-c", BIG_INSERT, PAIMON_SQL_PROGRESS_DELAY="0"
    )
    shell.wait_for(lambda: b"%" in shell.stderr)  # the INSERT is running (DuckDB reports progress)
    code, lines = shell.interrupt()
    assert code == 130
    assert "Interrupted before commit: nothing written to d.t" in lines, lines
    assert _snapshots(wh) == ["snapshot-1"]
    assert paimon_sql.connect(wh).sql("SELECT count(*) FROM d.t").fetchall() == [(2,)]


@pytest.mark.slow
def test_ctrl_c_after_the_commit_names_the_snapshot(wh):
    # A deletion-vector table compacts after each write: snapshot 2 is the INSERT's commit, then the
    # compaction runs; Ctrl-C once snapshot-2 exists interrupts the statement after its commit.
    setup = _shell(
        wh.parent,
        wh,
        "-c",
        "CREATE TABLE d.dv (id BIGINT, v STRING) WITH ('bucket' = '2', 'primary-key' = 'id', "
        "'deletion-vectors.enabled' = 'true'); INSERT INTO d.dv VALUES (0, 'z');",
    )
    assert setup.returncode == 0, setup.stderr
    table = wh / "d.db" / "dv" / "snapshot"
    assert sorted(p.name for p in table.glob("snapshot-*")) == ["snapshot-1", "snapshot-2"]
    shell = _Running(
        wh.parent, wh, "-c", BIG_INSERT.replace("d.t", "d.dv").replace("3000000", "1000000")
    )
    shell.wait_for(lambda: (table / "snapshot-3").exists())
    code, lines = shell.interrupt()
    assert code == 130
    latest = max(int(p.name.split("-")[1]) for p in table.glob("snapshot-*"))
    assert latest >= 3  # the INSERT's; its compaction (4) may have landed too
    message = f"Interrupted, but d.dv had committed snapshot {latest} before the interrupt"
    assert message in lines, lines
    # the INSERT's rows are committed (in level 0: a DV table shows them once compacted, as Java)
    snapshots = paimon_sql.connect(wh).sql(
        'SELECT snapshot_id, commit_kind FROM "d"."dv$snapshots"'
    )
    assert (3, "APPEND") in snapshots.fetchall()
