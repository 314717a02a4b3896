"""The second-opinion helpers work: they read Java-written fixtures the way Java did.

Known limitations of the readers themselves (see tests/data/fixtures/README.md): pypaimon 2.1.0
cannot read Paimon 0.9 manifests (KeyError ``_VALUE_STATS_COLS``), so it is checked on the
paimon-cpp fixtures (written by Java 1.x) instead.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

from tests.fixtures import FIXTURES
from tests.second_opinion import SecondOpinionError, read_with, write_with

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.second_opinion

JAVA09 = FIXTURES / "generated-paimon-java-0.9"
CPP = FIXTURES / "paimon-cpp" / "test" / "test_data" / "parquet"


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))


def _truth(name: str) -> list[dict[str, Any]]:
    truth = json.loads((JAVA09 / "java_truth.json").read_text())
    return sorted(truth[name], key=lambda r: json.dumps(r, sort_keys=True, default=str))


@pytest.mark.parametrize("name", ["pk_dedup", "pk_dv", "pk_first"])
def test_rust_matches_java_truth(name: str) -> None:
    got = read_with("pypaimon-rust", JAVA09 / "warehouse", f"db.{name}")
    assert _rows(got) == _truth(name)


def test_rust_snapshot_columns_where() -> None:
    got = read_with(
        "pypaimon-rust",
        JAVA09 / "warehouse",
        "db.pk_dedup",
        snapshot=1,
        columns=["id", "v"],
        where="id >= 2",
    )
    assert got.column_names == ["id", "v"]
    assert _rows(got) == [{"id": 2, "v": 20}, {"id": 4, "v": 40}]


def test_rust_empty_result_keeps_schema() -> None:
    got = read_with("pypaimon-rust", JAVA09 / "warehouse", "db.pk_dedup", where="id > 100")
    assert got.num_rows == 0
    assert got.column_names == ["id", "name", "v"]


def test_pypaimon_agrees_with_rust_on_java_1x_dv_table() -> None:
    wh, table = CPP, "pk_table_scan_and_read_dv.pk_table_scan_and_read_dv"
    py = read_with("pypaimon", wh, table)
    rust = read_with("pypaimon-rust", wh, table)
    assert py.num_rows == 8
    assert _rows(py) == _rows(rust)
    filtered = read_with("pypaimon", wh, table, columns=["f0", "f1"], where="f1 = 20")
    assert _rows(filtered) == [{"f0": "Lucy", "f1": 20}, {"f0": "Paul", "f1": 20}]


def test_failure_carries_reader_stderr() -> None:
    # pypaimon 2.1.0 cannot read Paimon 0.9 manifests: the error must say why.
    with pytest.raises(SecondOpinionError, match="_VALUE_STATS_COLS"):
        read_with("pypaimon", JAVA09 / "warehouse", "db.pk_dedup")


@pytest.mark.parametrize("writer", ["pypaimon", "pypaimon-rust"])
def test_write_then_read_back(writer: str, tmp_path: Path) -> None:
    create = {
        "columns": [("id", "BIGINT NOT NULL"), ("v", "STRING")],
        "primary_keys": ["id"],
        "options": {"bucket": "2"},
    }
    first = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "v": ["a", "b", "c"]})
    second = pa.table({"id": pa.array([2, 4], pa.int64()), "v": ["B", "d"]})
    seconds = write_with(writer, tmp_path, "db.t", [first, second], create=create)  # type: ignore[arg-type]
    assert len(seconds) == 2
    for reader in ("pypaimon", "pypaimon-rust"):
        got = read_with(reader, tmp_path, "db.t")  # type: ignore[arg-type]
        assert _rows(got) == [
            {"id": 1, "v": "a"},
            {"id": 2, "v": "B"},
            {"id": 3, "v": "c"},
            {"id": 4, "v": "d"},
        ], reader
