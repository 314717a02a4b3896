"""PySpark 4's Python Data Source writer (`paimon_sql.spark.register`), run in CI.

The project's virtualenv has PySpark 3.5, so `tests/spark/test_datasource.py` runs here once more,
in a cached PySpark 4.0 virtualenv (`tests/second_opinion/_venv.py`, "spark4") with this checkout on
PYTHONPATH; every one of its PySpark 4 tests must pass, none may be skipped.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.fixtures import REPO
from tests.second_opinion._venv import venv_python

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def test_the_data_source_writer_on_pyspark_4() -> None:
    python = venv_python("spark4")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYSPARK_PYTHON", None)  # the module sets it to the PySpark 4 interpreter
    proc = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "tests/spark/test_datasource.py",
            "-k",
            "not refuses_on_pyspark_3",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    tail = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, tail
    summary = proc.stdout.strip().splitlines()[-1]
    assert "passed" in summary, tail
    assert "skipped" not in summary, tail
