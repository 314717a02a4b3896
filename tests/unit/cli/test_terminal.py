"""The interactive shell driven through a pseudo-terminal, keystroke by keystroke.

The shell runs as a child process on a pty (stdlib only); the test types lines as a person would,
reads what the terminal shows (colour and cursor codes removed) and checks the rendered tables,
errors, prompts and history.
"""

from __future__ import annotations

import fcntl
import io
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from paimon_sql.cli._spinner import Spinner
from tests.unit.cli.conftest import PK_DEDUP_TABLE

UP = "\x1b[A"
CTRL_C = "\x03"
_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


class Terminal:
    """A child process on a pseudo-terminal: `type` keys, `expect` text on the screen."""

    def __init__(self, args, env):
        self.fd, child = os.openpty()
        fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        self.process = subprocess.Popen(
            args,
            stdin=child,
            stdout=child,
            stderr=child,
            env=env,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(child)
        self.screen = ""  # everything shown so far, codes removed
        self.seen = 0  # how much of `screen` an `expect` has consumed

    def type(self, keys: str, pause: float = 0.1) -> None:
        """Type `keys` after `pause` seconds: a person does not answer a prompt within microseconds,
        and Python's readline can miss a Ctrl-C that comes before it waits for keys."""
        time.sleep(pause)
        os.write(self.fd, keys.encode())

    def expect(self, text: str, timeout: float = 30) -> str:
        """Wait until `text` shows after the last match; return what showed up to it."""
        return self.expect_match(re.escape(text), timeout)

    def expect_match(self, pattern: str, timeout: float = 30) -> str:
        """Wait until regular expression `pattern` matches after the last match."""
        deadline = time.monotonic() + timeout
        while (found := re.compile(pattern).search(self.screen, self.seen)) is None:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                raise AssertionError(f"{pattern!r} never showed; the screen:\n{self.screen}")
        shown = self.screen[self.seen : found.end()]
        self.seen = found.end()
        return shown

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        self.screen += _CODES.sub("", data.decode(errors="replace"))
        return bool(data)

    def close(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            os.close(self.fd)


def _take_terminal() -> None:
    """In the child, a new session's leader: make the pty its controlling terminal (for Ctrl-C)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.fixture
def terminal(java_warehouse, tmp_path):
    env = {**os.environ, "TERM": "xterm", "PAIMON_SQL_HISTORY": str(tmp_path / "history")}
    shell = Terminal([sys.executable, "-m", "paimon_sql.cli", str(java_warehouse)], env)
    yield shell
    if shell.process.poll() is None:
        shell.process.kill()
        shell.close()


@pytest.mark.slow
def test_a_session_at_the_prompt(terminal, tmp_path):
    terminal.expect("Enter .help for the commands.")
    terminal.expect("paimon> ")

    # A statement over three lines: continuation prompts, then the table.
    terminal.type("SELECT *\r")
    terminal.expect("   ...> ")
    terminal.type("FROM db.pk_dedup\r")
    terminal.expect("   ...> ")
    terminal.type("ORDER BY id;\r")
    shown = terminal.expect("(4 rows)\n")
    assert shown.endswith("ORDER BY id;\n" + PK_DEDUP_TABLE)
    terminal.expect("paimon> ")

    # A bad query: one line of error, and the prompt comes back.
    terminal.type("SELECT * FROM db.pk_nope;\r")
    echo, error, prompt = terminal.expect("paimon> ").split("\n")
    assert echo == "SELECT * FROM db.pk_nope;"
    assert error.startswith("Error: table db.pk_nope not found")
    assert prompt == "paimon> "

    # Up-arrow twice brings back the three-line statement, as one entry: Enter runs it whole.
    # (readline redraws the line in place; without a terminal emulator the screen text is
    # garbled there, so the check is the table that comes back.)
    terminal.type(UP + UP + "\r")
    assert terminal.expect("(4 rows)\n").endswith(PK_DEDUP_TABLE)
    terminal.expect("paimon> ")

    # Ctrl-C drops a half-typed statement.
    terminal.type("SELECT 'never\r")
    terminal.expect("   ...> ")
    terminal.type(CTRL_C, pause=0.5)
    terminal.expect("^C\npaimon> ")

    # Dot-commands.
    terminal.type(".mode csv\r")
    terminal.expect("paimon> ")
    terminal.type("SELECT id, name FROM db.pk_dedup WHERE id < 3 ORDER BY id;\r")
    assert terminal.expect("paimon> ").endswith("id,name\n1,a2\n2,\npaimon> ")
    terminal.type(".tables\r")
    assert "\ndb.pk_dedup\ndb.pk_dv\n" in terminal.expect("paimon> ")
    terminal.type(".nonsense\r")
    assert terminal.expect("paimon> ").endswith(
        "Error: unknown command .nonsense (.help lists the commands)\npaimon> "
    )
    terminal.type(".quit\r")
    assert terminal.close() == 0

    history = (tmp_path / "history").read_text()
    assert "SELECT * FROM db.pk_dedup ORDER BY id;" in history


def test_spinner_draws_after_its_delay_and_erases_itself():
    stream = io.StringIO()
    with Spinner(stream, enabled=True, delay=0.05, interval=0.01) as spinner:
        time.sleep(0.3)
        spinner.stop()
        drawn = stream.getvalue()
        assert re.match(r"\r\x1b\[K\| 0\.\ds", drawn)
        assert drawn.endswith("\r\x1b[K")
        spinner.stop()  # idempotent
    assert stream.getvalue() == drawn


def test_quick_statements_draw_no_spinner():
    stream = io.StringIO()
    with Spinner(stream, enabled=True, delay=5):
        pass
    assert stream.getvalue() == ""


@pytest.mark.slow
def test_a_long_statement_shows_a_spinner_and_ctrl_c_interrupts_it(terminal):
    terminal.expect("paimon> ")
    terminal.type("SELECT count(*) FROM range(1000000000000);\r")  # minutes of counting
    terminal.expect("range(1000000000000);\n")
    terminal.expect_match(r"[|/\\-] 1\.\ds")  # the spinner, after about a second
    terminal.type(CTRL_C, pause=0.5)
    started = time.monotonic()
    terminal.expect("Interrupted\npaimon> ", timeout=20)
    assert time.monotonic() - started < 10
    terminal.type("SELECT 'still here' AS alive;\r")
    assert terminal.expect("(1 row)\n").endswith(" alive\n------------\n still here\n(1 row)\n")
    terminal.type(".quit\r")
    assert terminal.close() == 0
