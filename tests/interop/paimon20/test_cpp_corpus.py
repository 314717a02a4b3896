"""The truth file of the paimon-cpp corpus is Paimon 1.4.2's read, re-derived through the JVM.

``paimon-1.4.2-reads.json`` (read by ``tests/acceptance/test_paimon_cpp_corpus.py`` without a
JVM) must equal what the Java-API bridge answers today for every vendored table, latest, at each
snapshot and tag and on each branch (on a copy: the bridge's catalog creates a database).
"""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.acceptance.test_paimon_cpp_corpus import NOT_VENDORED, ROOT
from tests.interop.paimon20.cpp_corpus import java_reads

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def test_truth_is_java_reading_the_vendored_tables(java_api: JavaApiOracle, tmp_path: Path):
    assert java_api.version.startswith("1.4")
    root = tmp_path / "test_data"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("*.json"))
    fresh = java_reads(root)["reads"]
    recorded = json.loads((ROOT / "paimon-1.4.2-reads.json").read_text())["reads"]
    kept = {k: r for k, r in recorded.items() if r["path"] not in NOT_VENDORED}
    assert sorted(fresh) == sorted(kept)
    for key, read in fresh.items():
        assert read == kept[key], key
