"""Where the Java-written fixture tables are: ``$PAIMON_SQL_FIXTURES``, else ``shared/fixtures`` beside the repo.

CI clones the repository with ``shared/`` beside it; developers work in ``/work/main`` beside ``/work/shared``.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _locate() -> Path:
    explicit = os.environ.get("PAIMON_SQL_FIXTURES") or os.environ.get("PAIMON_FIXTURES")
    if explicit:
        return Path(explicit)
    for base in (REPO.parent, *REPO.parents, Path("/work")):
        candidate = base / "shared" / "fixtures"
        if candidate.is_dir():
            return candidate
    raise RuntimeError(
        "the Java-written fixtures (shared/fixtures) are not beside the repository; "
        "set PAIMON_SQL_FIXTURES to their folder"
    )


FIXTURES = _locate()
