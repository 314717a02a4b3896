"""The mypy gate: strict and error-free where STYLE.md says so, no new errors anywhere else.

Runs mypy with the ``[tool.mypy]`` settings of pyproject.toml (strict, ``paimon_sql`` and
``tests``). An error in a STRICT package fails the gate. An error elsewhere fails it unless the
baseline (``.ci/mypy-baseline.txt``) lists it: the baseline holds ``path: message [code]`` without
line numbers, so that an edit which only moves code does not break the gate; a count per entry keeps
repeated errors honest. Errors fixed since the baseline are reported, never fatal.

Usage::

    python .ci/mypy_gate.py            # the gate (``make lint``)
    python .ci/mypy_gate.py --update   # rewrite the baseline from today's errors (after a merge)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
STRICT = (
    "paimon_sql/format/",
    "paimon_sql/io/",
    "paimon_sql/catalog/",
    "paimon_sql/plan/",
    "paimon_sql/commit/",
)
ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):(?P<line>\d+)(?::\d+)?: error: (?P<message>.*)$")


def run_mypy() -> list[tuple[str, str]]:
    """Run mypy; return its errors as (path:line, ``path: message [code]``) pairs."""
    proc = subprocess.run(  # the interpreter's own mypy, configured by pyproject.toml
        [sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(proc.returncode)
    errors = []
    for line in proc.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            path = match["path"].replace("\\", "/")
            errors.append((f"{path}:{match['line']}", f"{path}: {match['message']}"))
    return errors


def read_baseline() -> Counter[str]:
    """The baseline's entries, with their counts."""
    if not BASELINE.exists():
        return Counter()
    lines = BASELINE.read_text(encoding="utf-8").splitlines()
    return Counter(line for line in lines if line and not line.startswith("#"))


def write_baseline(errors: list[tuple[str, str]]) -> None:
    """Rewrite the baseline from the current errors outside the strict packages."""
    keys = sorted(key for _, key in errors if not key.startswith(STRICT))
    header = "# mypy errors tolerated outside the strict packages (.ci/mypy_gate.py --update)\n"
    BASELINE.write_text(header + "".join(f"{key}\n" for key in keys), encoding="utf-8")
    print(f"mypy baseline: {len(keys)} errors written to {BASELINE.relative_to(ROOT)}")


def main() -> int:
    """Run the gate (or ``--update`` the baseline); the exit status is the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the baseline and pass")
    args = parser.parse_args()
    errors = run_mypy()
    if args.update:
        write_baseline(errors)
        return 0
    allowed = read_baseline()
    failures = []
    for where, key in errors:
        if key.startswith(STRICT):
            failures.append(f"{where}: {key.split(': ', 1)[1]}  (strict package)")
        elif allowed[key] > 0:
            allowed[key] -= 1
        else:
            failures.append(f"{where}: {key.split(': ', 1)[1]}  (new, not in the baseline)")
    fixed = sum(allowed.values())
    if fixed:
        print(f"mypy: {fixed} baseline errors are gone; shrink it with .ci/mypy_gate.py --update")
    for failure in failures:
        print(failure)
    print(f"mypy gate: {len(errors)} errors, {len(failures)} failing the gate")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
