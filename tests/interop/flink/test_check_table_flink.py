"""`CALL sys.check_table` reports nothing on the tables Apache Paimon 1.3.1 wrote (Flink corpus)."""

from __future__ import annotations

import pytest

from tests.interop.test_check_table_corpus import assert_intact

pytestmark = [pytest.mark.interop]


def test_flink_corpus_is_intact(flink_corpus):
    assert assert_intact(flink_corpus.warehouse, sorted(flink_corpus.tables)) >= 30
