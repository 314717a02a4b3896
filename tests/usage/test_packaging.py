"""The package a user installs works on its own, over the whole dependency range pyproject declares.

An sdist is built from the package's files only (as PyPI would ship it), and the wheel from that
sdist. Then, each in a virtualenv outside the repository:

* the newest releases (a fresh virtualenv, the wheel): the smoke set (``smoke.py``) and every Python
  and shell example of the README, run in order;
* the lowest declared version of every dependency (pip ``--constraint`` generated from pyproject's
  lower bounds; the virtualenv is cached under ``$PAIMON_SQL_CACHE/venvs``, the sdist reinstalled
  each run): the smoke set, and the versions it ran with are checked to be the lower bounds.

pip's downloads are cached in ``$PAIMON_SQL_CACHE/pip``, so ``make clean-cache`` removes them too.
"""

from __future__ import annotations

import ast
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from typing import TYPE_CHECKING

import pytest
from packaging.requirements import Requirement

from paimon_sql.engine.source import DUCKDB_RANGE
from tests.fixtures import FIXTURES, REPO
from tests.second_opinion._venv import cache_dir

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
DEPENDENCIES: list[str] = PYPROJECT["project"]["dependencies"]
#: What the package is built from: nothing else of the checkout reaches an sdist.
SOURCES = ("pyproject.toml", "README.md", "paimon_sql", "functions")
#: Names under which the package imports a dependency, where they differ from the distribution's.
_IMPORT_NAMES = {"backports.zstd": "backports", "pyroaring": "pyroaring"}
#: Optional dependencies, imported lazily where they are used (extras; `MissingDependencyError`).
_OPTIONAL_IMPORTS = {"pyspark", "pandas", "obstore", "polars", "readline"}


def _lower_bounds() -> list[str]:
    """``name==lowest`` for every dependency that applies to this Python."""
    pins = []
    for dependency in DEPENDENCIES:
        requirement = Requirement(dependency)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        lowest = [s.version for s in requirement.specifier if s.operator == ">="]
        assert len(lowest) == 1, f"{dependency}: every dependency needs one lower bound (>=)"
        pins.append(f"{requirement.name}=={lowest[0]}")
    return pins


def test_every_dependency_has_a_tested_lower_bound_and_duckdb_a_range():
    pins = _lower_bounds()
    assert all("==" in p for p in pins)
    (duckdb,) = [d for d in DEPENDENCIES if d.startswith("duckdb")]
    # the private source API (paimon_sql/engine/source.py) is tested on this range only, and the
    # error for another DuckDB names it
    assert re.fullmatch(r"duckdb>=[\d.]+,\s*<[\d.]+", duckdb), duckdb
    assert duckdb == f"duckdb{DUCKDB_RANGE}"


def test_every_import_of_the_package_is_a_declared_dependency():
    declared = {_IMPORT_NAMES.get(n, n) for n in (Requirement(d).name for d in DEPENDENCIES)}
    imported = set()
    for path in (REPO / "paimon_sql").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"paimon_sql", "__future__"}
    assert third_party - _OPTIONAL_IMPORTS <= declared, third_party - _OPTIONAL_IMPORTS - declared


def test_package_list_matches_the_folders() -> None:
    """pyproject lists the packages by hand (to map functions/ into the wheel): it must not miss
    one.
    """
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "paimon_sql").rglob("__init__.py")
    }
    assert found | {"paimon_sql.functions"} == listed


def _run(*args, **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, check=False, **kwargs
    )
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _pip_env() -> dict[str, str]:
    """The environment of every subprocess: pip's cache in ours, no PYTHONPATH to this checkout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return env | {"PIP_CACHE_DIR": str(cache_dir() / "pip"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """The sdist, built from the package's sources alone, and the wheel built from that sdist."""
    root = tmp_path_factory.mktemp("dist")
    source = root / "source"
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(
                REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            source.mkdir(exist_ok=True)
            shutil.copy(REPO / name, source / name)
    tools = _cached_venv("build", ["build==1.3.0"], [])
    _run(tools, "-m", "build", "--sdist", "--outdir", root, source, env=_pip_env())
    (sdist,) = root.glob("paimon_sql-*.tar.gz")
    _run(tools, "-m", "pip", "wheel", "-q", "--no-deps", "-w", root, sdist, env=_pip_env())
    (wheel,) = root.glob("paimon_sql-*.whl")
    return {"sdist": sdist, "wheel": wheel}


def _cached_venv(name: str, requirements: list[str], constraints: list[str]) -> Path:
    """Python of ``<cache>/venvs/<name>``, (re)built when its requirements changed."""
    root = cache_dir() / "venvs"
    root.mkdir(parents=True, exist_ok=True)
    venv = root / name
    python = venv / "bin" / "python"
    stamp = json.dumps([sys.version, requirements, constraints])
    with open(root / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = venv / ".paimon-sql-stamp"
        if python.exists() and marker.exists() and marker.read_text() == stamp:
            return python
        shutil.rmtree(venv, ignore_errors=True)
        _run(sys.executable, "-m", "venv", venv)
        pins = venv / "constraints.txt"
        pins.write_text("".join(f"{c}\n" for c in constraints))
        # binary wheels only: a lower bound without a wheel for this Python is not a lower bound
        _run(python, "-m", "pip", "install", "-q", "--only-binary=:all:", "-c", pins,
             *requirements, env=_pip_env())  # fmt: skip
        marker.write_text(stamp)
    return python


def _smoke(python: Path, work: Path) -> dict[str, str]:
    """Run smoke.py with `python` outside the repository; the versions it ran with."""
    work.mkdir()
    script = shutil.copy(REPO / "tests" / "usage" / "smoke.py", work / "smoke.py")
    fixture = shutil.copytree(FIXTURES / "generated-paimon-java-0.9", work / "fixture")
    done = _run(python, script, work, fixture, cwd=work, env=_pip_env())
    words = done.stdout.split()
    assert words[0] == "ok", done.stdout
    return dict(w.split("==") for w in words[1:])


def test_lowest_declared_versions(dist, tmp_path):
    pins = _lower_bounds()
    python = _cached_venv("lowest", DEPENDENCIES, pins)
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", dist["sdist"],
         env=_pip_env())  # fmt: skip
    versions = _smoke(python, tmp_path / "work")
    lowest = dict(p.split("==") for p in pins)
    ran = {n: _release(v) for n, v in versions.items() if n in lowest}
    assert ran == {n: _release(v) for n, v in lowest.items() if n in versions}


def _release(version: str) -> tuple[int, ...]:
    """``17`` and ``17.0.0`` alike: the release numbers without trailing zeros."""
    numbers = [int(n) for n in version.split(".")]
    while numbers and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


#: The newest DuckDB before the source protocol (duckdb._sources) came in 2.0.
OLD_DUCKDB = "duckdb==1.5.6"


def test_a_duckdb_without_the_source_protocol_is_refused_by_name(dist, tmp_path):
    pins = [p for p in _lower_bounds() if not p.startswith("duckdb")] + [OLD_DUCKDB]
    deps = [d for d in DEPENDENCIES if not d.startswith("duckdb")] + [OLD_DUCKDB]
    python = _cached_venv("old-duckdb", deps, pins)
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", dist["wheel"],
         env=_pip_env())  # fmt: skip
    done = subprocess.run(
        [python, "-c", "import paimon_sql"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_pip_env(),
        check=False,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "paimon_sql.errors.MissingDependencyError: paimon-sql needs DuckDB's Python source "
        "protocol (duckdb._sources), which duckdb 1.5.6 does not have: "
        f"pip install 'duckdb{DUCKDB_RANGE}'"
    )


@pytest.fixture(scope="module")
def newest(dist, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel and the newest dependencies the ranges allow."""
    venv = tmp_path_factory.mktemp("newest") / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python: Path = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", dist["wheel"], env=_pip_env())
    return python


def test_newest_versions(newest, tmp_path):
    versions = _smoke(newest, tmp_path / "work")
    lowest = dict(p.split("==") for p in _lower_bounds())
    assert _release(versions["duckdb"]) >= _release(lowest["duckdb"])


# --- the README's examples --------------------------------------------------------------------

_BLOCK = re.compile(
    r"^(<!-- readme-test: skip \(.+?\) -->\n)?```(python|sh)\n(.*?)^```", re.S | re.M
)

_DRIVER = """
import json, os, subprocess, sys
blocks = json.load(open(sys.argv[1]))
scope = {"__name__": "__readme__"}
for number, (kind, code) in enumerate(blocks, 1):
    print(f"--- block {number} ({kind})", flush=True)
    if kind == "python":
        exec(compile(code, f"README block {number}", "exec"), scope)
    else:
        done = subprocess.run(["bash", "-e", "-c", code], stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"README block {number} failed: {code}"
print("README ok")
"""


def readme_blocks() -> list[tuple[str, str]]:
    """The README's ``python`` and ``sh`` blocks, in order, but those marked to skip."""
    text = (REPO / "README.md").read_text()
    return [(kind, code) for skip, kind, code in _BLOCK.findall(text) if not skip]


def test_readme_examples_run(newest, tmp_path):
    blocks = readme_blocks()
    assert len(blocks) >= 4
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    (tmp_path / "driver.py").write_text(_DRIVER)
    env = _pip_env() | {"PATH": f"{newest.parent}{os.pathsep}{os.environ['PATH']}"}
    done = _run(newest, "driver.py", "blocks.json", cwd=tmp_path, env=env)
    assert done.stdout.endswith("README ok\n"), done.stdout
