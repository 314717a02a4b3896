"""Session fixtures of the Flink (Apache Paimon 1.3.1) oracle: one worker and one corpus per run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.interop.flink.corpus import ensure_corpus
from tests.interop.flink.harness import oracle

if TYPE_CHECKING:
    from tests.interop.flink.corpus import Corpus
    from tests.interop.flink.harness import FlinkOracle


@pytest.fixture(scope="session")
def flink() -> FlinkOracle:
    """The Flink worker (PyFlink 1.20.5 + paimon-flink 1.3.1), started once per test session."""
    return oracle()


@pytest.fixture(scope="session")
def flink_corpus() -> Corpus:
    """The Flink-written corpus and Flink's reads of it (built on first use, then cached)."""
    return ensure_corpus()
