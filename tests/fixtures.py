"""Where the Java-written fixture tables are: ``tests/data/fixtures`` in this repository.

They are vendored (5 MB, Apache-2.0; provenance in ``tests/data/fixtures/README.md``) so that
a plain ``git clone`` runs every test with nothing beside it. ``$PAIMON_SQL_FIXTURES`` points
the tests at another copy.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENDORED = REPO / "tests" / "data" / "fixtures"


def _locate() -> Path:
    explicit = os.environ.get("PAIMON_SQL_FIXTURES")
    location = Path(explicit) if explicit else VENDORED
    if not location.is_dir():
        raise RuntimeError(f"the Java-written fixtures are missing: {location} is not a folder")
    return location


FIXTURES = _locate()
