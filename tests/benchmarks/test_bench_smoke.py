"""The benchmark runner still runs end to end (tiny sizes, one repetition). No timing asserts.

Marked ``slow`` and ``second_opinion``: it builds the reader virtualenvs and, for the DV table,
runs Spark once per cache (``<cache>/bench/rows-20000``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.benchmarks import run

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.slow, pytest.mark.second_opinion]

ROWS = 20_000


def test_read_suite_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "read.json"
    argv = ["--rows", str(ROWS), "--reps", "1", "--pypaimon-reps", "1", "--output", str(out)]
    assert run.main(argv) == 0
    report = json.loads(out.read_text())
    results = report["results"]
    assert set(results) >= {"pk_full_arrow", "pk_point", "append_full_arrow", "dv_full_arrow"}
    for workload, row in results.items():
        floor = row["floor"]
        assert "error" not in floor, (workload, floor)
        for engine in ("paimon-sql", "pypaimon-rust"):
            assert "error" not in row[engine], (workload, engine, row[engine])
        for engine, cell in row.items():
            if engine == "read_parquet" or not cell or "error" in cell:
                continue  # read_parquet keeps deleted rows by design; pypaimon fails on 0.9 DVs
            assert cell["agrees"], (workload, engine, cell["check"], floor["check"])
    # every row compared, not a fingerprint: count + digest of the sorted rows
    assert set(results["pk_full_arrow"]["floor"]["check"]) == {"count", "rows_sha256"}
    assert report["mismatches"] == []
    # merged PK rows: base keys + the upsert's new keys
    assert results["pk_full_arrow"]["floor"]["check"]["count"] == ROWS + ROWS // 10
    assert results["pk_point"]["floor"]["check"]["count"] == 1
    assert "workload" in capsys.readouterr().out


def test_write_suite_smoke(tmp_path: Path) -> None:
    out = tmp_path / "write.json"
    argv = ["--suite", "write", "--rows", str(ROWS), "--reps", "1", "--skip-slow"]
    assert run.main([*argv, "--output", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    for case in ("pk_fixed8_load", "pk_fixed8_upsert", "pk_dynamic_load", "append_load"):
        cell = results[case]["paimon-sql"]
        assert cell.get("best", 0) > 0, cell
    assert results["pk_fixed8_upsert"]["pypaimon-rust"]["reps"] == 1


def test_lookup_suite_smoke(tmp_path: Path) -> None:
    """The lookup-compaction benchmark (`tests.benchmarks.lookup`) on 2,000 rows: every cell runs,
    the DuckDB floor finds the existing keys, and paimon-sql's table equals the expected rows."""
    from tests.benchmarks import lookup

    out = tmp_path / "lookup.json"
    argv = ["--rows", "2000", "--reps", "2", "--ks", "1,10", "--kinds", "dv,first_row,lookup"]
    lookup.main([*argv, "--output", str(out)])
    results = json.loads(out.read_text())["results"]
    assert len(results) == 6
    for row in results:
        ours, floor = row["paimon_sql"], row["duckdb_floor"]
        assert "error" not in ours, row
        assert "error" not in floor, row
        assert ours["same"], row  # the whole table against the rows computed in DuckDB
        assert floor["found"] == [row["k"] // 2] * 2, row  # the existing half of the keys


def test_partitioned_dv_scan_smoke(tmp_path: Path) -> None:
    """`partitions_ab --dv` on the Java-written 10-partition DV table (one Spark job per cache):
    paimon-sql's rows equal the floor's (the level > 0 files of every partition minus the positions
    of their deletion vectors, found in the partition folders), and the upsert did delete rows."""
    from tests.benchmarks import partitions_ab

    out = tmp_path / "dv.json"
    only = ["--only", "dv_p10_full_arrow", "--only", "dv_p10_agg"]
    argv = ["--dv", "--rows", str(ROWS), "--reps", "1", *only, "--output", str(out)]
    assert partitions_ab.main(argv) == 0
    report = json.loads(out.read_text())
    assert report["tables"]["dv_p10"]["count"] == ROWS + ROWS // 10  # Spark's own count
    for name in ("dv_p10_full_arrow", "dv_p10_agg"):
        cell = report["results"][name]
        assert cell["same_result"], cell
        assert cell["files"] >= 10, cell  # at least one live file per partition
        assert cell["deleted_rows"] == ROWS // 10, cell  # the upsert's updates, each deleted once
