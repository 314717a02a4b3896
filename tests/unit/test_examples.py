"""examples/ run as a smoke test.

Each script runs to the end in a fresh folder and prints what it promises.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Text each example must print: proof that it got past its last step, not just that it started.
EXPECT = {
    "demo.py": [
        "a table we wrote: upserted, updated, deleted",
        "what planning did for a partition filter",
    ],
    "debug_a_lake.py": [
        "why order 42 reads as it does",
        "deleted by deletion vector",
        "the data file is missing",
        "check_table found the damage",
    ],
    "history.py": ["the tag still reads as it did", "month_end", "the plan of a pruned query"],
    "spark_pipeline.py": [
        "after upserting 100 corrections",
        "after overwriting 2024-05-15 with 10 orders",
        "OVERWRITE",
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    for text in EXPECT[script]:
        assert text in done.stdout, f"{script} did not print {text!r}:\n{done.stdout[-3000:]}"
