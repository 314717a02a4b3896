"""The cyclic garbage collector paused while metadata is decoded and planned.

Decoding a manifest makes a few objects per entry (`ManifestEntry`, `DataFileMeta`, `SimpleStats`)
that live on in the table's manifest cache and hold no reference cycles; planning adds a few more
per file. With the collector on, every full collection walks each object the process holds (a
`DataFileMeta` refers to some twenty others), and as the cache grows by 25 % a full collection
follows: a 100,000-file cold plan spent about a quarter of its CPU time in the collector, more the
larger the table. Paused, the new objects are walked once when it resumes (as the young
generation) instead of in every full collection on the way. Reference counting still frees all
that is dropped meanwhile.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

_LOCK = threading.Lock()
_pauses = 0  # paused sections under way, in any thread
_resume = False  # whether the first of them found the collector on


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block (nested and threads allowed).

    It resumes when the last paused block of the process ends, unless it was off before the
    first began.

    >>> import gc
    >>> with gc_paused():
    ...     with gc_paused():
    ...         inside = gc.isenabled()
    ...     still = gc.isenabled()
    >>> inside, still, gc.isenabled()
    (False, False, True)
    """
    global _pauses, _resume
    with _LOCK:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _LOCK:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()
