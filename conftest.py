"""The doctest namespace: what a ``>>>`` example in ``paimon_sql/`` may use without building it.

* ``paimon_sql``: the package.
* ``tmp_warehouse``: the path of a new, empty warehouse folder (one per doctest).
* ``warehouse``: the path of a new copy (one per doctest) of a tiny warehouse built by `SAMPLE`:
  database ``db`` with the primary-key table ``db.t (id INT, name STRING)`` in one bucket;
  snapshot 1 wrote ``(1, 'a'), (2, 'b')``, snapshot 2 updated ``(2, 'B')``, and tag ``v1`` holds
  snapshot 1.

It lives at the repository root (not in ``paimon_sql/``, so nothing test-only ships) because a
conftest reaches only the doctests below its folder.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

SAMPLE = (
    "CREATE DATABASE db",
    "CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
    " WITH ('bucket' = '1')",
    "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
    "INSERT INTO db.t VALUES (2, 'B')",
    "CALL sys.create_tag('db.t', 'v1', 1)",
)


@pytest.fixture(scope="session")
def _sample_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import paimon_sql

    path = tmp_path_factory.mktemp("sample") / "warehouse"
    path.mkdir()
    session = paimon_sql.connect(path)
    try:
        for statement in SAMPLE:
            session.sql(statement)
    finally:
        session.close()
    return path


@pytest.fixture(autouse=True)
def _doctest_warehouses(request: pytest.FixtureRequest) -> None:
    """Fill the doctest namespace, for doctests only (other tests make no folders here)."""
    if not isinstance(request.node, pytest.DoctestItem):
        return
    import paimon_sql

    namespace = request.getfixturevalue("doctest_namespace")
    tmp_path: Path = request.getfixturevalue("tmp_path")
    sample: Path = request.getfixturevalue("_sample_warehouse")
    namespace["paimon_sql"] = paimon_sql
    namespace["tmp_warehouse"] = str(tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    namespace["warehouse"] = str(shutil.copytree(sample, tmp_path / "warehouse", symlinks=True))


# --- leaving the process -----------------------------------------------------------------------
# A whole run leaves thousands of DuckDB databases to the interpreter's shutdown (sessions that
# tests do not close; each holds worker threads): tearing them down one by one took ~10 minutes
# after the summary was printed. The results are final once the session has finished, so the
# process leaves with the session's exit status at the very end instead.
_exit_status: list[int] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remember the run's exit status for `pytest_unconfigure`."""
    _exit_status.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave at once with the run's status (the summary is printed; nothing else is pending)."""
    if _exit_status:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status[-1])
