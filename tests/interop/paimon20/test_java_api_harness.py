"""The Java-API oracle itself: values survive the bridge exactly, failures surface, and Paimon 2.0
is still out of reach (this fails the day 2.0 runs here: then switch `PAIMON_VERSION`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.interop.paimon20.harness import JavaApiError, probe_paimon_20

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def test_bridge_is_lossless(java_api: JavaApiOracle, tmp_path: Path):
    fields = [
        ("id", "INT NOT NULL"),
        ("ts", "TIMESTAMP(9)"),
        ("ltz", "TIMESTAMP_LTZ(9)"),
        ("ch", "CHAR(3)"),
        ("r", {"type": "ROW", "fields": [{"id": 9, "name": "a", "type": "INT"}]}),
    ]
    java_api.create(tmp_path, "t", fields)
    rows: list[list[Any]] = [
        [1, "2024-01-01T00:00:00.000000001", "1969-12-31T23:59:59.999999999", "a  ", [None]],
        [2, None, None, None, None],
    ]
    java_api.write(tmp_path, "t", rows)
    columns, read = java_api.read(tmp_path, "t")
    assert columns == ["id", "ts", "ltz", "ch", "r"]
    assert sorted(read, key=lambda r: r["id"]) == [
        {
            "id": 1,
            "ts": ["timestamp", "2024-01-01T00:00:00.000000001"],
            "ltz": ["timestamp", "1969-12-31T23:59:59.999999999"],
            "ch": "a  ",
            "r": ["row", [None]],
        },
        {"id": 2, "ts": None, "ltz": None, "ch": None, "r": None},
    ]
    assert [s["kind"] for s in java_api.snapshots(tmp_path, "t")] == ["APPEND"]


def test_java_failures_surface(java_api: JavaApiOracle, tmp_path: Path):
    java_api.create(tmp_path, "t", [("id", "INT")])
    with pytest.raises(JavaApiError, match="snapshot"):
        java_api.read(tmp_path, "t", snapshot=5)


def test_paimon_20_is_not_reachable_here(tmp_path: Path):
    """Maven serves paimon-core 2.0.0 alone; on 1.4.2's common classes it cannot make a catalog."""
    error = probe_paimon_20(tmp_path)
    assert error, "Paimon 2.0 runs here now: set harness.PAIMON_VERSION and the jars to 2.0"
    assert "CachingFileIO" in error or "does not serve" in error, error
