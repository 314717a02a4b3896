"""The anti-join merge (disjoint sequence ranges) and the row_number merge agree on Java-written
tables, and both return the rows Paimon Java returns.

The truth is the acceptance suite's expected file of each table (``tests/acceptance/expected``:
made from the fixture READMEs and ``java_truth.json``, never by paimon-sql). It matters for the
cases where the anti-join chain is never built (``pk_table_with_mor``: the files' sequence ranges
overlap; ``pk_table_scan_and_read_first_row``: first-row hides level-0 files, so no section needs a
merge): there both runs execute the same SQL, and comparing them with each other would compare a
query with itself. Which cases build the chain is checked, so a case cannot silently turn into one
of those.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pyarrow as pa
import pytest

import paimon_sql
from paimon_sql.read import build
from tests.fixtures import FIXTURES

ACCEPTANCE = Path(__file__).resolve().parents[1] / "acceptance"
_spec = importlib.util.spec_from_file_location("acceptance_normalize", ACCEPTANCE / "normalize.py")
normalize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(normalize)

CPP = "paimon-cpp/test/test_data"
JAVA = "generated-paimon-java-0.9/warehouse"

# (warehouse, table, acceptance expected file, whether the read builds an anti-join chain)
CASES = [
    (
        f"{CPP}/parquet",
        "pk_table_with_mor.pk_table_with_mor",
        "paimon-cpp-parquet-pk_table_with_mor",
        False,
    ),
    (
        f"{CPP}/parquet",
        "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
        "paimon-cpp-parquet-pk_table_scan_and_read_mor",
        True,
    ),
    (
        f"{CPP}/parquet",
        "pk_table_scan_and_read_first_row.pk_table_scan_and_read_first_row",
        "paimon-cpp-parquet-pk_table_scan_and_read_first_row",
        False,
    ),
    (
        f"{CPP}/parquet",
        "pk_table_nested_type.pk_table_nested_type",
        "paimon-cpp-parquet-pk_table_nested_type",
        True,
    ),
    (
        f"{CPP}/orc",
        "pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
        "paimon-cpp-orc-pk_table_scan_and_read_mor",
        True,
    ),
    (JAVA, "db.pk_dedup", "generated-pk_dedup", True),
    (JAVA, "db.pk_avro", "generated-pk_avro", True),
    (JAVA, "db.pk_rowkind_delete", "generated-pk_rowkind_delete", True),
]


def _expected(name: str) -> list:
    case = json.loads((ACCEPTANCE / "expected" / f"{name}.json").read_text())
    assert case["snapshot"] is None, f"{name}: the truth of the latest snapshot is wanted"
    return normalize.canonical_rows(case["rows"])


def _read(warehouse: str, table: str) -> list:
    session = paimon_sql.connect(FIXTURES / warehouse)
    try:
        out = session.sql(f"SELECT * FROM {table}").arrow()  # noqa: S608
        rows = out.read_all() if isinstance(out, pa.RecordBatchReader) else out
    finally:
        session.close()
    return normalize.canonical_rows(normalize.norm_arrow_table(rows))


@pytest.mark.parametrize(
    ("warehouse", "table", "truth", "chain"),
    CASES,
    ids=[c[2] for c in CASES],
)
def test_strategies_agree(warehouse, table, truth, chain, monkeypatch):
    built = []
    pieces = build._SplitQuery.anti_join_pieces

    def spy(self, *args, **kwargs):
        out = pieces(self, *args, **kwargs)
        built.append(out is not None)
        return out

    monkeypatch.setattr(build._SplitQuery, "anti_join_pieces", spy)
    fast = _read(warehouse, table)
    assert any(built) is chain, f"{table}: anti-join chain built: {built}, the case says {chain}"
    monkeypatch.setattr(build._SplitQuery, "anti_join", False)
    built.clear()
    slow = _read(warehouse, table)
    assert not any(built)
    want = _expected(truth)
    assert want
    assert fast == want, f"{table}: the anti-join read differs from Paimon Java's rows"
    assert slow == want, f"{table}: the row_number read differs from Paimon Java's rows"
