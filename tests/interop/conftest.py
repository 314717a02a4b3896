"""Session fixtures for the interop suite: one JVM and one Spark-written corpus per test run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.interop.corpus import ensure_corpus
from tests.interop.harness import spark_session

if TYPE_CHECKING:
    from tests.interop.corpus import Corpus


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """The Spark-written corpus (built on first use, then cached under <cache>/corpus)."""
    return ensure_corpus()


@pytest.fixture(scope="session")
def spark(corpus: Corpus):
    """The Spark session whose default catalog ``paimon`` is the corpus warehouse."""
    return spark_session(corpus.warehouse)
