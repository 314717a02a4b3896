"""Compare every expected file with pypaimon-rust 0.4.0 (a second opinion, not the truth).

Run it in a throwaway virtualenv that has pypaimon-rust, NOT in the project venv:
    python3 -m venv /tmp/prvenv && /tmp/prvenv/bin/pip install pypaimon-rust==0.4.0 pyarrow
    /tmp/prvenv/bin/python tests/acceptance/tools/crosscheck_pypaimon_rust.py
Prints one line per case: agree / DISAGREE (with the row differences) / error. With ``--write``
the verdict is stored in each expected file as ``pypaimon_rust_0_4_0`` (build_expected.py keeps it).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pyarrow as pa
from pypaimon_rust.datafusion import PaimonCatalog

from tests.fixtures import FIXTURES

ACC = Path(__file__).resolve().parent.parent
FIX = FIXTURES
_spec = importlib.util.spec_from_file_location("acc_normalize", ACC / "normalize.py")
normalize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(normalize)


def read(case):
    cat = PaimonCatalog({"warehouse": str(FIX / case["warehouse"])})
    table = cat.get_table(f"{case['database']}.{case['table']}")
    opts = {"scan.snapshot-id": str(case["snapshot"])} if case["snapshot"] else None
    rb = table.new_read_builder(opts) if opts else table.new_read_builder()
    batches = rb.new_read().read(rb.new_scan().plan().splits())
    if not batches:
        return [], None
    tab = pa.Table.from_batches(batches)
    return normalize.norm_arrow_table(tab), tab.column_names


def main() -> int:
    results = {}
    for path in sorted((ACC / "expected").glob("*.json")):
        case = json.loads(path.read_text())
        try:
            rows, cols = read(case)
        except Exception as e:  # noqa: BLE001 - any failure of the reader is this case's result
            results[case["id"]] = f"error: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
            continue
        exp = normalize.canonical_rows(case["rows"])
        got = normalize.canonical_rows(rows)
        if cols is not None and cols != case["columns"]:
            results[case["id"]] = f"DISAGREE columns {cols} != {case['columns']}"
        elif exp == got:
            results[case["id"]] = f"agree ({len(rows)} rows)"
        else:
            only_exp = sorted(set(exp) - set(got))
            only_got = sorted(set(got) - set(exp))
            results[case["id"]] = (
                f"DISAGREE ({len(got)} rows vs {len(exp)} expected); "
                f"expected only: {only_exp}; pypaimon-rust only: {only_got}"
            )
    for k, v in results.items():
        print(f"{k}: {v}")
    if "--write" in sys.argv:  # record the verdict in each expected file
        for path in sorted((ACC / "expected").glob("*.json")):
            case = json.loads(path.read_text())
            case["pypaimon_rust_0_4_0"] = results[case["id"]]
            path.write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
