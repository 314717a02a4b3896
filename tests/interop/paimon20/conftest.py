"""Session fixture of the Java-API oracle: one JVM per test run."""

from __future__ import annotations

import pytest

from tests.interop.paimon20.harness import JavaApiOracle, oracle


@pytest.fixture(scope="session")
def java_api() -> JavaApiOracle:
    """The bridge JVM over Paimon's Java API (paimon-bundle, see harness.PAIMON_VERSION)."""
    return oracle()
