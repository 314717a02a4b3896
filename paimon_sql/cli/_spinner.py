"""A spinner on stderr while a statement runs: elapsed time, and the percentage done when known."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import TextIO

_FRAMES = "|/-\\"
_CLEAR = "\r\033[K"


class Spinner:
    """After `delay` seconds, redraw ``| 1.3s 42%`` on `stream` until `stop`, then erase it.

    The percentage is what `progress` returns (DuckDB's ``query_progress``: the running query's
    share of its input read), left out while it is negative (no query, or none measurable).

    A disabled spinner does nothing, so callers need no ``if``:

    >>> import io
    >>> with Spinner(io.StringIO(), enabled=False) as spinner:
    ...     spinner.stop()
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        enabled: bool,
        delay: float = 1.0,
        interval: float = 0.1,
        progress: Callable[[], float] | None = None,
    ) -> None:
        """Prepare a spinner writing to `stream` (start it with ``with``)."""
        self._stream = stream
        self._progress = progress
        self._enabled = enabled
        self._delay = delay
        self._interval = interval
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="paimon-sql-spinner", daemon=True)
        self._drawn = False

    def __enter__(self) -> Spinner:
        if self._enabled:
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop drawing and erase the spinner (idempotent)."""
        if not self._thread.is_alive():
            return
        self._done.set()
        self._thread.join()
        if self._drawn:
            self._stream.write(_CLEAR)
            self._stream.flush()

    def _run(self) -> None:
        started = time.monotonic()
        if self._done.wait(self._delay):
            return
        frame = 0
        while not self._done.is_set():
            elapsed = time.monotonic() - started
            done = self._percent()
            self._stream.write(f"{_CLEAR}{_FRAMES[frame % len(_FRAMES)]} {elapsed:.1f}s{done}")
            self._stream.flush()
            self._drawn = True
            frame += 1
            self._done.wait(self._interval)

    def _percent(self) -> str:
        if self._progress is None:
            return ""
        try:
            value = self._progress()
        except Exception:  # noqa: BLE001 - a closed connection at the very end: no percentage
            return ""
        return f" {min(value, 100.0):.0f}%" if value >= 0 else ""
