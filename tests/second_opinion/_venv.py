"""Cached virtualenvs for the second-opinion readers (and the benchmark's Spark writer).

Each reader lives in its own virtualenv under ``<cache>/venvs/<name>``, because pypaimon pins
pyarrow < 20 and the project's venv has pyarrow 26. A venv is (re)built when its stamp file does
not hold exactly the requirement list below, under a file lock so that two processes never build
the same venv at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path


def _project_dependencies() -> tuple[str, ...]:
    """paimon-sql's own runtime dependencies, as pyproject.toml declares them."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    return tuple(tomllib.loads(pyproject.read_text())["project"]["dependencies"])


# The readers we ask for a second opinion. Pins are deliberate: results in
# tests/benchmarks/results are only comparable for the same versions.
VENV_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "pypaimon": ("pypaimon==2.1.0",),
    # pypaimon-rust declares no dependencies at all; pyarrow is only for the IPC exchange.
    "pypaimon-rust": ("pypaimon-rust==0.4.0", "pyarrow>=26,<27"),
    # The benchmark's deletion-vector table is written by Apache Paimon (Java) through Spark.
    "spark": ("pyspark==3.5.*",),
    # PySpark 4's Python Data Source writer (tests/spark/test_spark4.py): paimon-sql comes from the
    # checkout (PYTHONPATH), its dependencies from pyproject.toml.
    "spark4": ("pyspark==4.0.*", "pandas>=2", "pytest>=8", *_project_dependencies()),
}

_STAMP = ".paimon-sql-requirements.json"


class VenvError(RuntimeError):
    """A cached virtualenv could not be created."""


def cache_dir() -> Path:
    """``${PAIMON_SQL_CACHE:-$HOME/.cache/paimon-sql}``: survives clean clones."""
    root = os.environ.get("PAIMON_SQL_CACHE") or str(Path.home() / ".cache" / "paimon-sql")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def venv_python(name: str) -> Path:
    """Python of the cached virtualenv ``name``, creating the venv on first use."""
    if name not in VENV_REQUIREMENTS:
        raise ValueError(f"unknown virtualenv {name!r}; known: {sorted(VENV_REQUIREMENTS)}")
    root = cache_dir() / "venvs"
    root.mkdir(parents=True, exist_ok=True)
    venv = root / name
    python = venv / "bin" / "python"
    wanted = list(VENV_REQUIREMENTS[name])
    with open(root / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _stamp(venv) != wanted or not python.exists():
            _build(venv, wanted)
    return python


def _stamp(venv: Path) -> list[str] | None:
    try:
        return list(json.loads((venv / _STAMP).read_text()))
    except (OSError, ValueError):
        return None


def _build(venv: Path, requirements: list[str]) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    print(f"[second_opinion] creating {venv} with {' '.join(requirements)}", file=sys.stderr)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--upgrade", "pip"],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *requirements],
    ]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            raise VenvError(
                f"building {venv} failed at: {' '.join(step)}\n{proc.stdout[-2000:]}"
                f"\n{proc.stderr[-4000:]}"
            )
    (venv / _STAMP).write_text(json.dumps(requirements))
