"""Session fixture of the Java-API oracle: one JVM per test run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.interop.paimon20.harness import oracle

if TYPE_CHECKING:
    from tests.interop.paimon20.harness import JavaApiOracle


@pytest.fixture(scope="session")
def java_api() -> JavaApiOracle:
    """The bridge JVM over Paimon's Java API (paimon-bundle, see harness.PAIMON_VERSION)."""
    return oracle()


@pytest.fixture(scope="session")
def java_corpus(java_api: JavaApiOracle, tmp_path_factory: pytest.TempPathFactory):
    """The Java-API-written corpus (`corpus.TABLES`), built once per run: its warehouse."""
    from tests.interop.paimon20.corpus import TABLES, build

    warehouse = tmp_path_factory.mktemp("java-api-corpus") / "warehouse"
    for table in TABLES:
        build(java_api, warehouse, table)
    return warehouse
