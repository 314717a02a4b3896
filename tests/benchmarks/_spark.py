"""Private Spark launcher for the deletion-vector benchmark table.

TODO(consolidate): tests/interop/harness.py (``paimon_jar()``, ``spark_session(warehouse)``) is
being written in parallel and did not exist when this was needed. This module is the minimal
stand-in: it fetches the Paimon Spark runtime jar with Maven (Ivy cannot reach Maven Central
here) into ``<cache>/jars`` and runs ``_spark_job.py`` in a cached ``spark`` virtualenv
(pyspark is not installed in the project venv). Once the harness exists, use its jar and
session instead.

The Maven Central mirror reachable from this machine lists ``paimon-spark-3.5`` only up to
0.9.0 (1.x poms return 404), hence the 0.9.0 default; override with ``PAIMON_SQL_BENCH_PAIMON``.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.second_opinion import cache_dir, venv_python

PAIMON_VERSION = os.environ.get("PAIMON_SQL_BENCH_PAIMON", "0.9.0")
ARTIFACT = "org.apache.paimon:paimon-spark-3.5"
_JOB = Path(__file__).with_name("_spark_job.py")


class SparkJobError(RuntimeError):
    """The Spark job (or fetching its jar) failed; the message holds its output."""


def paimon_spark_jar(version: str = PAIMON_VERSION) -> Path:
    """``paimon-spark-3.5-<version>.jar`` in ``<cache>/jars``, fetched with Maven once."""
    jars = cache_dir() / "jars"
    jar = jars / f"paimon-spark-3.5-{version}.jar"
    if jar.exists():
        return jar
    jars.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            "mvn",
            "-q",
            "dependency:copy",
            f"-Dartifact={ARTIFACT}:{version}",
            f"-DoutputDirectory={jars}",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    if proc.returncode != 0 or not jar.exists():
        raise SparkJobError(
            f"mvn could not fetch {ARTIFACT}:{version}:\n{proc.stdout[-4000:]}"
            f"\n{proc.stderr[-4000:]}"
        )
    return jar


def run_spark_job(request: dict[str, Any]) -> dict[str, Any]:
    """Run ``_spark_job.py`` with ``request`` (plus the jar); return its JSON answer."""
    python = venv_python("spark")
    payload = {**request, "jar": str(paimon_spark_jar())}
    with tempfile.TemporaryDirectory(prefix="paimon-sql-spark-") as tmp:
        req = Path(tmp) / "request.json"
        req.write_text(json.dumps(payload))
        env = {**os.environ, "PYSPARK_PYTHON": str(python)}
        proc = subprocess.run(
            [str(python), str(_JOB), str(req)], capture_output=True, text=True, check=False, env=env
        )
    if proc.returncode != 0:
        raise SparkJobError(f"Spark job failed (exit {proc.returncode}):\n{proc.stderr[-8000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))
