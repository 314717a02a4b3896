"""Read benchmarks: paimon-sql vs a hand-written DuckDB floor, pypaimon-rust and pypaimon.

    .venv/bin/python -m tests.benchmarks.run                   # 1M rows, 5 repetitions
    .venv/bin/python -m tests.benchmarks.run --rows 10000000 --skip-slow
    .venv/bin/python -m tests.benchmarks.run --suite write     # issue-4 write benchmarks
    .venv/bin/python -m tests.benchmarks.run --suite spark --rows 10000000  # issue-13 PySpark
    .venv/bin/python -m tests.benchmarks.run --suite scale --sizes 1000000 10000000 50000000
    .venv/bin/python -m tests.benchmarks.run --suite partitions --reps 3  # issue-18 scans

Every (workload, engine) cell runs in a fresh subprocess (so peak RSS is per cell); set-up is
excluded and each repetition materializes the full result as Arrow. See README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from tests.benchmarks import _data, _tables
from tests.benchmarks.workloads import PARTITIONED_WORKLOADS, SCALE_WORKLOADS, WORKLOADS
from tests.second_opinion import SecondOpinionError, run_worker, versions

if TYPE_CHECKING:
    from tests.benchmarks.workloads import Workload

ENGINES = ("floor", "read_parquet", "paimon-sql", "pypaimon-rust", "pypaimon")
#: Not a reader of the table: a plain ``read_parquet`` of its live files (no deletion vectors),
#: the reference of issue 2's scan targets; it runs only for workloads that define ``plain``.
REFERENCE = "read_parquet"
RESULTS = Path(__file__).with_name("results")
REPO = Path(__file__).resolve().parents[2]


def _local_cell(engine: str, request: dict[str, Any]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({**request, "engine": engine}, fh)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks._local", fh.name],
            capture_output=True,
            text=True,
            check=False,
            cwd=REPO,
        )
    finally:
        os.unlink(fh.name)
    if proc.returncode != 0:
        raise RuntimeError(
            proc.stderr.strip().splitlines()[-1]
            if proc.stderr.strip()
            else f"exit {proc.returncode}"
        )
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def paimon_sql_available() -> str | None:
    """None when ``paimon_sql.connect`` is importable, else why not."""
    proc = subprocess.run(
        [sys.executable, "-c", "import paimon_sql; paimon_sql.connect"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]


def run_cell(engine: str, workload: Workload, args: argparse.Namespace) -> dict[str, Any] | None:
    if engine == REFERENCE and not workload.plain:
        return None
    reps = args.pypaimon_reps if engine == "pypaimon" else args.reps
    request = {
        "op": "bench",
        "warehouse": str(_tables.warehouse(args.rows)),
        "reps": reps,
        "workload": workload.as_request(_data.point_key(args.rows)),
    }
    try:
        if engine in ("floor", REFERENCE, "paimon-sql"):
            answer = _local_cell(engine, request)
        else:
            answer = run_worker(engine, request)  # type: ignore[arg-type]
    except (RuntimeError, SecondOpinionError) as err:
        return {"error": str(err).strip().splitlines()[-1][:300]}
    secs = answer["seconds"]
    return {
        "best": min(secs),
        "median": statistics.median(secs),
        "first": secs[0],
        "reps": len(secs),
        "peak_rss_mb": round(answer["peak_rss_mb"], 1),
        "setup_seconds": round(answer["setup_seconds"], 3),
        "check": answer["check"],
    }


def _fmt(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "n/a"
    if "error" in cell:
        return "error"
    mark = "" if cell.get("agrees", True) else " !"
    return f"{cell['best']:.3f}/{cell['median']:.3f}{mark}"


def _verdict(cell: dict[str, Any] | None) -> str:
    if not cell or "error" in cell or "agrees" not in cell:
        return "-"
    return "same" if cell["agrees"] else "DIFFERENT"


def mismatches(results: dict[str, dict[str, Any]]) -> list[str]:
    """``workload / engine`` of every cell whose result differs from the floor's."""
    return [
        f"{w} / {e}"
        for w, row in results.items()
        for e, cell in row.items()
        if isinstance(cell, dict) and cell.get("agrees") is False
    ]


def _ratio(cell: dict[str, Any] | None, ref: dict[str, Any] | None) -> str:
    if not cell or not ref or "median" not in cell or "median" not in ref:
        return "-"
    return f"{cell['median'] / ref['median']:.2f}x"


def render(results: dict[str, dict[str, Any]], engines: list[str]) -> str:
    width = max(len(w) for w in results) + 2
    lines = [
        "seconds best/median (! = result differs from the floor's)",
        "workload".ljust(width) + "".join(e.rjust(17) for e in engines),
    ]
    for name, row in results.items():
        lines.append(name.ljust(width) + "".join(_fmt(row.get(e)).rjust(17) for e in engines))
    lines.append("")
    lines.append("median ratios: engine / floor | engine / pypaimon-rust")
    others = [e for e in engines if e != "floor"]
    lines.append("workload".ljust(width) + "".join(f"{e}".rjust(26) for e in others))
    for name, row in results.items():
        cells = [
            f"{_ratio(row.get(e), row.get('floor'))} | "
            f"{_ratio(row.get(e), row.get('pypaimon-rust'))}"
            for e in others
        ]
        lines.append(name.ljust(width) + "".join(c.rjust(26) for c in cells))
    scans = [n for n, row in results.items() if row.get(REFERENCE)]
    if scans and REFERENCE in engines:
        lines.append("")
        lines.append(
            "scan target (issue 2: <= 1.2x; issue 18, partitioned: <= 1.1x):"
            " engine / plain read_parquet of the files"
        )
        readers = [e for e in others if e != REFERENCE]
        for name in scans:
            row = results[name]
            cells = [f"{e} {_ratio(row.get(e), row.get(REFERENCE))}" for e in readers]
            lines.append(name.ljust(width) + "   ".join(cells))
    lines.append("")
    lines.append("peak RSS MB per cell")
    for name, row in results.items():
        rss = "".join(str((row.get(e) or {}).get("peak_rss_mb", "-")).rjust(17) for e in engines)
        lines.append(name.ljust(width) + rss)
    lines.append("")
    lines.append("results against the floor (every row: count + SHA-256 of the sorted rows)")
    for name, row in results.items():
        verdicts = [f"{e} {_verdict(row.get(e))}" for e in others if e != REFERENCE]
        lines.append(name.ljust(width) + "   ".join(verdicts))
    errors = [
        f"  {w} / {e}: {c['error']}"
        for w, row in results.items()
        for e, c in row.items()
        if isinstance(c, dict) and "error" in c
    ]
    return "\n".join(lines + (["", "errors:", *errors] if errors else []))


def _mark_agreement(row: dict[str, Any], workload: Workload) -> None:
    """Each cell's ``agrees``: its check (the aggregate row, or the row count and a digest of every
    row, see ``tests.second_opinion._worker.fingerprint``) equals the floor's."""
    floor = (row.get("floor") or {}).get("check")
    # LIMIT without ORDER BY may return any rows: only the count must agree.
    keys = ("count",) if "LIMIT" in workload.sql else None
    for engine, cell in row.items():
        if engine == REFERENCE:  # reads the deleted rows too, by design
            continue
        if isinstance(cell, dict) and "check" in cell and floor is not None:
            got, want = cell["check"], floor
            if keys:
                got, want = {k: got.get(k) for k in keys}, {k: want.get(k) for k in keys}
            cell["agrees"] = got == want


def machine() -> dict[str, Any]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    except OSError:
        mem_kb = 0
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(mem_kb / 2**20, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
    }


def run_reads(args: argparse.Namespace) -> dict[str, Any]:
    suite = {"partitions": PARTITIONED_WORKLOADS, "scale": SCALE_WORKLOADS}.get(
        args.suite, WORKLOADS
    )
    unknown = sorted(set(args.only or ()) - {w.name for w in suite})
    if unknown:
        raise SystemExit(
            f"--only {', '.join(unknown)}: not a workload of --suite {args.suite}; it has "
            f"{', '.join(w.name for w in suite)} "
            "(the deletion-vector scans run in partitions_ab --dv)"
        )
    selected = [w for w in suite if not args.only or w.name in args.only]
    tables = _tables.ensure_tables(
        args.rows, with_dv=not args.no_dv, only={w.table for w in selected}
    )
    engines = [e for e in ENGINES if e not in args.skip_engine]
    if args.skip_slow and "pypaimon" in engines:
        engines.remove("pypaimon")
    unavailable = paimon_sql_available()
    if unavailable and "paimon-sql" in engines:
        print(f"[bench] paimon-sql not usable ({unavailable}): column n/a", file=sys.stderr)
    results: dict[str, dict[str, Any]] = {}
    for workload in selected:
        if workload.table not in tables:
            continue
        row: dict[str, Any] = {}
        for engine in engines:
            if engine == "paimon-sql" and unavailable:
                row[engine] = None
                continue
            print(f"[bench] {workload.name} / {engine} ...", file=sys.stderr, flush=True)
            row[engine] = run_cell(engine, workload, args)
        _mark_agreement(row, workload)
        results[workload.name] = row
    report = {
        "suite": args.suite,
        "rows": args.rows,
        "reps": args.reps,
        "pypaimon_reps": args.pypaimon_reps,
        "machine": machine(),
        "readers": {r: versions(r) for r in ("pypaimon-rust", "pypaimon") if r in engines},
        "tables": tables,
        "workloads": {w.name: w.description for w in suite if w.name in results},
        "load_average": os.getloadavg(),
        "results": results,
    }
    print(render(results, engines))
    differing = mismatches(results)
    report["mismatches"] = differing
    if differing:
        print(f"\n[bench] results differ from the floor: {', '.join(differing)}", file=sys.stderr)
    return report


def _median(cell: dict[str, Any] | None) -> float | None:
    return cell.get("median") if cell and "error" not in cell and "na" not in cell else None


def curves(by_size: dict[int, dict[str, Any]]) -> dict[str, dict[str, dict[int, float | None]]]:
    """Median seconds per (workload or write case, engine or writer) across sizes.

    >>> curves({10: {"read": {"results": {"q": {"floor": {"median": 1.0}}}},
    ...              "write": {"results": {"w": {"paimon-sql": {"error": "x"}}}}}})
    {'q': {'floor': {10: 1.0}}, 'w': {'paimon-sql': {10: None}}}
    """
    out: dict[str, dict[str, dict[int, float | None]]] = {}
    for size, reports in sorted(by_size.items()):
        for report in reports.values():
            for name, row in report["results"].items():
                for engine, cell in row.items():
                    out.setdefault(name, {}).setdefault(engine, {})[size] = _median(cell)
    return out


def render_curves(table: dict[str, dict[str, dict[int, float | None]]], sizes: list[int]) -> str:
    """One line per (workload, engine): the median seconds at each size."""
    head = "workload / engine".ljust(40) + "".join(f"{n:,}".rjust(14) for n in sizes)
    lines = ["median seconds by base rows", head]
    for name, engines in table.items():
        for engine, points in engines.items():
            cells = "".join(
                (f"{points[n]:.3f}" if points.get(n) is not None else "-").rjust(14) for n in sizes
            )
            lines.append(f"{name} / {engine}".ljust(40) + cells)
    return "\n".join(lines)


def run_scale(args: argparse.Namespace) -> dict[str, Any]:
    """The read and write suites at every ``--sizes`` value, and their cost curves.

    Each size builds (once, cached) its own tables and input; the read suite compares every
    result in full with the floor at each size, as alone.
    """
    from tests.benchmarks.write import run_writes

    by_size: dict[int, dict[str, Any]] = {}
    for size in args.sizes:
        args.rows = size
        print(f"[bench] scale: {size:,} rows", file=sys.stderr, flush=True)
        by_size[size] = {"read": run_reads(args), "write": run_writes(args)}
    table = curves(by_size)
    print(render_curves(table, args.sizes))
    return {
        "suite": "scale",
        "sizes": args.sizes,
        "load_average": os.getloadavg(),
        "curves": table,
        "by_size": by_size,
        "mismatches": {n: r["read"]["mismatches"] for n, r in by_size.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.benchmarks.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--suite", choices=("read", "partitions", "write", "spark", "scale"), default="read"
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[1_000_000, 10_000_000, 50_000_000],
        help="base rows of each step of --suite scale",
    )
    parser.add_argument("--rows", type=int, default=1_000_000, help="base rows (default 1M)")
    parser.add_argument("--reps", type=int, default=5, help="repetitions per cell")
    parser.add_argument(
        "--pypaimon-reps", type=int, default=2, help="repetitions for pure-Python pypaimon (slow)"
    )
    parser.add_argument("--skip-slow", action="store_true", help="leave pypaimon out")
    parser.add_argument("--skip-engine", action="append", default=[], choices=ENGINES)
    parser.add_argument("--only", action="append", help="run only this workload (repeatable)")
    parser.add_argument("--no-dv", action="store_true", help="no Spark: skip the DV table")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="JSON report (default results/latest.json for the read suite)",
    )
    args = parser.parse_args(argv)
    if args.suite == "write":
        from tests.benchmarks.write import run_writes

        report = run_writes(args)
    elif args.suite == "spark":
        from tests.benchmarks.write import run_spark_writes

        report = run_spark_writes(args)
    elif args.suite == "scale":
        report = run_scale(args)
    else:
        report = run_reads(args)
    default = {
        "read": "latest.json",
        "partitions": "partitions.json",
        "write": "writes.json",
        "spark": "spark-writes.json",
        "scale": "scale.json",
    }
    output = args.output or RESULTS / default[args.suite]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"\nwrote {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
