"""Planning time against the number of snapshots (issue 18, item 5).

``python -m tests.benchmarks.planning --snapshots 100 1000 [10000] [--files-per-commit 10]
[--mode grow|overwrite] [--bulk [--mode compact --live 1000]] [--keep DIR]``;
``--java-count DIR`` has Flink 1.3.1 and paimon-sql count a kept table's rows; ``--java-read DIR``
has Apache Paimon's Java API (`tests/interop/paimon20`, no Flink) read every row of a kept table,
compared in full with paimon-sql's.

``--bulk`` (`_Bulk`) builds 10,000 snapshots and 100,000 files without SQL statements:
pyarrow-written Parquet files committed through `Committer`, 10 a commit (``compact``: a fixed
number of live files, each commit rewriting 10 of them). With ``--files-per-commit 1000`` a
100,000-file table takes 100 commits (about a minute): planning depends on the manifest entries
and manifests, not on how many commits made them.

``--measure DIR [DIR ...] [--label L]`` only measures kept tables (`measure_kept`: cold and warm
plans, wall, CPU and garbage-collector seconds), each in a child process, and appends the rows as
one run to ``--output``; with another ``paimon_sql`` first on ``PYTHONPATH`` (run from outside the
repository) it measures that version on the same tables.

Builds one append table partitioned by ``p`` with paimon-sql's own writer. ``grow`` (default): every
commit inserts one row into each of ``--files-per-commit`` partitions (one new data file each), so
after N commits the table has N snapshots and N x files-per-commit live files. ``overwrite``: every
commit overwrites one of ``--files-per-commit`` partitions in turn, so the live files stay at that
number while snapshots and manifest entries (ADD and DELETE) pile up: the planning cost of history
alone. At each checkpoint it times, median of ``--reps``:

* ``latest``: finding the latest snapshot (a fresh `Table`, as a new session does);
* ``plan_cold``: planning a full read of the latest snapshot on a fresh `Table` (nothing cached);
* ``plan_warm``: the same plan again on that `Table` (manifests cached per table);
* ``commit_s`` / ``commit_cpu_s``: one INSERT (write and commit) just before the checkpoint,
  median of the last 20: it must not grow with the history;
* ``manifests``: how many data manifests the latest snapshot lists (Java's merging keeps it below
  ``manifest.merge-min-count`` plus what one merge writes).

Planning must not grow with the number of snapshots beyond what the number of *live files* costs;
``cpu_per_file_us`` divides the cold plan's CPU time by the live files. Results go to
``results/planning.json``. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def _timed(run: Any, reps: int) -> float:
    seconds = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def _cpu(run: Any, reps: int) -> float:
    """Median CPU seconds of this process: on a shared machine wall time mostly measures the
    neighbours (a 3,000-file plan: 0.09 s CPU, 0.5-0.8 s wall at load average 10)."""
    seconds = []
    for _ in range(reps):
        start = time.process_time()
        run()
        seconds.append(time.process_time() - start)
    return statistics.median(seconds)


def measure(warehouse: str, reps: int) -> dict[str, Any]:
    """Time finding and planning the latest snapshot of ``db.t`` in `warehouse`."""
    import paimon_sql
    from paimon_sql.plan.scan import plan_scan as plan

    catalog = paimon_sql.Catalog(warehouse)

    def latest() -> None:
        catalog.load_table("db.t").latest_snapshot()

    table = catalog.load_table("db.t")
    snapshot = table.latest_snapshot()
    first = plan(table, snapshot)
    files = sum(len(s.files) for s in first.splits)
    manifests = len(table.data_manifests(snapshot))
    walls, cpus = [], []
    for _ in range(reps):  # a fresh Table each time: nothing cached
        wall, cpu = time.perf_counter(), time.process_time()
        fresh = catalog.load_table("db.t")
        plan(fresh, fresh.latest_snapshot())
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    cold_cpu = statistics.median(cpus)
    return {
        "snapshot": snapshot.id if snapshot else 0,
        "live_files": files,
        "manifests": manifests,
        "latest_s": _timed(latest, reps),
        "plan_cold_s": statistics.median(walls),
        "plan_cold_cpu_s": cold_cpu,
        "plan_warm_s": _timed(lambda: plan(table, table.latest_snapshot()), reps),
        "plan_warm_cpu_s": _cpu(lambda: plan(table, table.latest_snapshot()), reps),
        "cpu_per_file_us": cold_cpu / max(files, 1) * 1e6,
        "load_average": os.getloadavg()[0],
    }


def run(
    checkpoints: list[int],
    files_per_commit: int,
    reps: int,
    mode: str = "grow",
    keep: str | None = None,
    linked: bool = False,
) -> list[dict[str, Any]]:
    import paimon_sql

    root = keep or tempfile.mkdtemp(prefix="planning-")
    try:
        session = paimon_sql.connect(root, create=True)
        session.sql("CREATE DATABASE db")
        session.sql("CREATE TABLE db.t (p INT, v BIGINT) PARTITIONED BY (p)")
        done, out = 0, []
        build = 0.0
        for target in sorted(checkpoints):
            start = time.perf_counter()
            walls: list[float] = []
            cpus: list[float] = []
            while done < target:
                wall, cpu = time.perf_counter(), time.process_time()
                if linked and done:
                    _linked_commit(root, done)
                elif mode == "overwrite":
                    # dynamic partition overwrite: that partition only (integers, no parameters:
                    # INSERT OVERWRITE takes none)
                    part = int(done % files_per_commit)
                    session.sql(f"INSERT OVERWRITE db.t SELECT {part}, {int(done)}")
                else:
                    session.sql(
                        "INSERT INTO db.t SELECT range, ? FROM range(?)",
                        params=[done, files_per_commit],
                    )
                done += 1
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            build += time.perf_counter() - start
            row = {
                "mode": mode,
                "commits": done,
                "build_s": build,
                # one statement (write + commit) near the checkpoint: median of the last 20
                "commit_s": statistics.median(walls[-20:]),
                "commit_cpu_s": statistics.median(cpus[-20:]),
                **measure(root, reps),
            }
            print(json.dumps(row), flush=True)
            out.append(row)
        session.close()
        return out
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


_FIRST: dict[str, Any] = {}


def _linked_commit(root: str, number: int) -> None:
    """Commit `number`: the first commit's data files again, as new hard links (``--linked``).

    The same rows under new names, committed through `Committer` (the commit path of every
    statement, without DuckDB's query and Parquet encoding): a valid table whose history grows ten
    times faster to build. Each file gets the commit number as its sequence number.
    """
    import dataclasses

    import paimon_sql
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.commit.publish import Committer

    if "table" not in _FIRST:
        table = paimon_sql.Catalog(root).load_table("db.t")
        snapshot = table.snapshot(1)
        _FIRST["table"] = table
        _FIRST["entries"] = [
            e for m in table.data_manifests(snapshot) for e in table.manifest(m.file_name)
        ]
    table = _FIRST["table"]
    messages = []
    for e in _FIRST["entries"]:
        folder = table.sub(*_bucket_folder(table, e))
        name = f"linked-{number}-{e.file.file_name}"
        os.link(os.path.join(folder, e.file.file_name), os.path.join(folder, name))
        f = dataclasses.replace(
            e.file, file_name=name, min_sequence_number=number, max_sequence_number=number
        )
        messages.append(
            CommitMessage(
                partition=e.partition,
                bucket=e.bucket,
                total_buckets=e.total_buckets,
                new_files=(f,),
            )
        )
    Committer(table).commit(messages)


def _bucket_folder(table: Any, entry: Any) -> list[str]:
    from paimon_sql.format.binary_row import decode_row

    schema = table.latest_schema
    types = [schema.field(k).type for k in schema.partition_keys]
    values = decode_row(entry.partition, types)
    parts = [f"{k}={v}" for k, v in zip(schema.partition_keys, values, strict=True)]
    return [*parts, f"bucket-{entry.bucket}"]


class _Bulk:
    """Commits of real Parquet data files written with pyarrow, ``files`` a commit (``--bulk``).

    Each file holds ``rows`` distinct values of one partition (``p`` = 0 .. ``partitions`` - 1,
    in turn), is encoded by paimon-sql's data-file writer (`write_data_file`: pyarrow, with the
    stats Java reads), and is committed through `Committer` (the commit path of every statement,
    without DuckDB's query). ``grow`` adds files; ``compact`` rewrites the oldest live files of
    one partition into new ones holding the same rows (a COMPACT commit: the live files stay at
    their number while snapshots and manifest entries pile up).
    """

    def __init__(self, root: str, files: int, partitions: int, rows: int) -> None:
        import paimon_sql

        resume = os.path.isdir(os.path.join(root, "db.db", "t"))
        if not resume:
            session = paimon_sql.connect(root, create=True)
            session.sql("CREATE DATABASE db")
            session.sql(
                "CREATE TABLE db.t (p INT, v BIGINT) PARTITIONED BY (p) "
                "WITH ('snapshot.time-retained' = '7 d', 'file.compression' = 'none')"
            )
            session.close()
        self.table = paimon_sql.Catalog(root).load_table("db.t")
        self.schema = self.table.latest_schema
        self.files, self.partitions, self.rows = files, partitions, rows
        self.next_value = 0
        self.counter = 0
        self.sequence: dict[int, int] = {}
        self.live: dict[int, list[Any]] = {}  # partition -> its live files, oldest first
        self.write_s = 0.0
        if resume:  # a grow build kept with --keep goes on (its files are read back)
            self._resume()

    def _resume(self) -> None:
        from paimon_sql.commit.plan import fold
        from paimon_sql.format.binary_row import decode_row

        types = [self.schema.field("p").type]
        snapshot = self.table.latest_snapshot()
        metas = self.table.data_manifests(snapshot)
        live = fold(e for m in metas for e in self.table.manifest(m.file_name)).values()
        for e in sorted(live, key=lambda e: e.file.min_sequence_number):
            (part,) = decode_row(e.partition, types)
            seq = self.sequence.get(part, 0)
            self.sequence[part] = max(seq, e.file.max_sequence_number + 1)
            self.live.setdefault(part, []).append((e.file, None))
            self.next_value += e.file.row_count

    def _write(self, part: int, first_value: int) -> Any:
        import uuid

        import pyarrow as pa

        from paimon_sql.write.data_file import data_file_name, write_data_file

        rows = pa.table(
            {
                "p": pa.array([part] * self.rows, pa.int32()),
                "v": pa.array(range(first_value, first_value + self.rows), pa.int64()),
            }
        )
        self.counter += 1
        name = data_file_name(str(uuid.uuid4()), self.counter, "parquet")
        path = self.table.sub(f"p={part}", "bucket-0", name)
        start = self.sequence.get(part, 0)
        self.sequence[part] = start + self.rows
        meta = write_data_file(
            self.table.fileio, path, rows, schema=self.schema, first_sequence_number=start
        )
        return meta, first_value

    def commit(self, number: int, compact: bool) -> float:
        """One commit; returns its wall seconds (the files are written before the clock starts)."""
        from paimon_sql.commit.plan import CommitMessage
        from paimon_sql.commit.publish import Committer
        from paimon_sql.format.binary_row import encode_row
        from paimon_sql.format.snapshot import CommitKind

        types = [self.schema.field("p").type]
        begin = time.perf_counter()
        messages = []
        if compact:
            part = number % self.partitions
            old = self.live[part][: self.files]
            del self.live[part][: self.files]
            new = [self._write(part, first) for _, first in old]
            self.live[part] += new
            messages.append(
                CommitMessage(
                    partition=encode_row((part,), types),
                    bucket=0,
                    total_buckets=self.schema.bucket,
                    new_files=tuple(m for m, _ in new),
                    deleted_files=tuple(m for m, _ in old),
                )
            )
        else:
            for j in range(self.files):
                part = (number * self.files + j) % self.partitions
                written = self._write(part, self.next_value)
                self.next_value += self.rows
                self.live.setdefault(part, []).append(written)
                messages.append(
                    CommitMessage(
                        partition=encode_row((part,), types),
                        bucket=0,
                        total_buckets=self.schema.bucket,
                        new_files=(written[0],),
                    )
                )
        start = time.perf_counter()
        self.write_s += start - begin
        kind = CommitKind.COMPACT if compact else CommitKind.APPEND
        snapshot = Committer(self.table).commit(messages, kind=kind)
        if snapshot is None or snapshot.id != number + 1:
            raise RuntimeError(f"commit {number} made {snapshot}")
        return time.perf_counter() - start

    def expected_rows(self) -> int:
        return sum(len(files) for files in self.live.values()) * self.rows


def run_bulk(
    checkpoints: list[int],
    files_per_commit: int,
    reps: int,
    mode: str,
    keep: str | None,
    partitions: int,
    rows: int,
    live: int,
) -> list[dict[str, Any]]:
    """`--bulk`: ``grow`` to the checkpoints, or ``compact`` with `live` files kept live."""
    root = keep or tempfile.mkdtemp(prefix="planning-bulk-")
    try:
        bulk = _Bulk(root, files_per_commit, partitions, rows)
        snapshot = bulk.table.latest_snapshot()
        done, out, build = (0 if snapshot is None else snapshot.id), [], 0.0
        grow_first = -(-live // files_per_commit) if mode == "compact" else 0
        for target in sorted(checkpoints):
            start = time.perf_counter()
            walls: list[float] = []
            cpus: list[float] = []
            while done < target:
                cpu = time.process_time()
                walls.append(bulk.commit(done, compact=mode == "compact" and done >= grow_first))
                cpus.append(time.process_time() - cpu)
                done += 1
                if done % 500 == 0:
                    print(f"{done} commits, {time.perf_counter() - start:.0f} s", file=sys.stderr)
            build += time.perf_counter() - start
            row = {
                "mode": f"bulk-{mode}",
                "commits": done,
                "build_s": build,
                "write_files_s": bulk.write_s,
                "commit_s": statistics.median(walls[-20:]),
                "commit_cpu_s": statistics.median(cpus[-20:]),  # writing the files included
                **measure(root, reps),
            }
            row["expected_files"] = sum(len(f) for f in bulk.live.values())
            row["expected_rows"] = bulk.expected_rows()
            print(json.dumps(row), flush=True)
            out.append(row)
        return out
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def measure_kept(warehouse: str, reps: int) -> dict[str, Any]:
    """Cold and warm plans of a kept table's latest snapshot (``--measure``), in this process.

    Cold: a fresh `Table` each time, nothing else held (the process has imported and planned
    once before, so imports are not counted; the operating system's page cache is warm). Warm:
    the same `Table` again (its manifests cached). Wall and CPU seconds, medians of `reps`;
    ``gc_s``: seconds the cyclic garbage collector ran during the cold plans (median), from
    ``gc.callbacks``.
    """
    import gc

    import paimon_sql
    from paimon_sql.plan.scan import plan_scan as plan

    catalog = paimon_sql.Catalog(warehouse)
    warm_up = catalog.load_table("db.t")
    files = sum(len(s.files) for s in plan(warm_up, warm_up.latest_snapshot()).splits)
    manifests = len(warm_up.data_manifests(warm_up.latest_snapshot()))
    del warm_up
    gc.collect()
    spent = [0.0, 0.0]

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            spent[1] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - spent[1]

    walls, cpus, gcs = [], [], []
    gc.callbacks.append(collector)
    try:
        for _ in range(reps):
            spent[0] = 0.0
            wall, cpu = time.perf_counter(), time.process_time()
            fresh = catalog.load_table("db.t")
            plan(fresh, fresh.latest_snapshot())
            cpus.append(time.process_time() - cpu)
            walls.append(time.perf_counter() - wall)
            gcs.append(spent[0])
            del fresh
    finally:
        gc.callbacks.remove(collector)
    table = catalog.load_table("db.t")
    plan(table, table.latest_snapshot())
    cold_cpu = statistics.median(cpus)
    return {
        "warehouse": os.path.basename(warehouse.rstrip("/")),
        "live_files": files,
        "manifests": manifests,
        "plan_cold_s": statistics.median(walls),
        "plan_cold_cpu_s": cold_cpu,
        "plan_cold_gc_s": statistics.median(gcs),
        "plan_warm_s": _timed(lambda: plan(table, table.latest_snapshot()), reps),
        "plan_warm_cpu_s": _cpu(lambda: plan(table, table.latest_snapshot()), reps),
        "cpu_per_file_us": cold_cpu / max(files, 1) * 1e6,
        "load_average": os.getloadavg()[0],
    }


def measure_each(warehouses: list[str], reps: int) -> list[dict[str, Any]]:
    """`measure_kept` of each warehouse in a process of its own (``--measure``).

    The child imports ``paimon_sql`` as this process would (``PYTHONPATH``): to measure another
    version, put its package folder first.
    """
    import subprocess

    rows = []
    for warehouse in warehouses:
        command = ["--measure-one", warehouse, "--reps", str(reps)]
        done = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.planning", *command],
            check=True,
            capture_output=True,
            text=True,
        )
        row = json.loads(done.stdout.strip().splitlines()[-1])
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def java_count(warehouse: str) -> dict[str, Any]:
    """Apache Paimon 1.3.1 (Flink 1.20, `tests/interop/flink/harness.py`) and paimon-sql count the
    rows of ``db.t``'s latest snapshot (``--java-count DIR``, on a table kept with ``--keep``)."""
    import paimon_sql
    from tests.interop.flink.harness import oracle

    sql = "SELECT count(*) AS n, sum(v) AS s, count(DISTINCT p) AS parts FROM t"
    start = time.perf_counter()
    _, rows = oracle().query(warehouse, sql)
    java_s = time.perf_counter() - start
    session = paimon_sql.connect(warehouse)
    start = time.perf_counter()
    ((n, total, parts),) = session.sql(
        "SELECT count(*), sum(v), count(DISTINCT p) FROM db.t"
    ).fetchall()
    ours_s = time.perf_counter() - start
    table = session.table("db.t")
    snapshot = table.latest_snapshot()
    return {
        "snapshot": snapshot.id if snapshot else 0,
        "java": rows[0],
        "java_s": java_s,
        "paimon_sql": {"n": n, "s": str(total), "parts": parts},
        "paimon_sql_s": ours_s,
    }


def java_read(warehouse: str) -> dict[str, Any]:
    """Apache Paimon's Java API (`tests/interop/paimon20/harness.py`: paimon-core 2.0, one JVM)
    and paimon-sql read every row of ``db.t``'s latest snapshot, compared in full as sorted lists
    of rows (``--java-read DIR``, on a table kept with ``--keep``)."""
    from sqlglot import exp

    import paimon_sql
    from tests.interop.paimon20.harness import oracle

    start = time.perf_counter()
    columns, java_rows = oracle().read(warehouse, "t")
    java_s = time.perf_counter() - start
    session = paimon_sql.connect(warehouse)
    start = time.perf_counter()
    query = exp.select(*[exp.column(c, quoted=True) for c in columns]).from_("db.t")
    ours = session.sql(query.sql("duckdb")).fetchall()
    ours_s = time.perf_counter() - start
    snapshot = session.table("db.t").latest_snapshot()
    theirs = sorted(tuple(r[c] for c in columns) for r in java_rows)
    mine = sorted(tuple(r) for r in ours)
    first_difference = next(
        (i for i, (a, b) in enumerate(zip(theirs, mine, strict=False)) if a != b), None
    )
    return {
        "snapshot": snapshot.id if snapshot else 0,
        "columns": columns,
        "java_rows": len(theirs),
        "paimon_sql_rows": len(mine),
        "same": theirs == mine,
        "first_difference": first_difference,
        "java_s": java_s,
        "paimon_sql_s": ours_s,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--snapshots", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--files-per-commit", type=int, default=10)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--mode", choices=["grow", "overwrite", "compact"], default="grow")
    parser.add_argument(
        "--bulk",
        action="store_true",
        help="commits of pyarrow-written Parquet files through Committer (see _Bulk)",
    )
    parser.add_argument("--partitions", type=int, default=100, help="--bulk: partitions")
    parser.add_argument("--rows", type=int, default=10, help="--bulk: rows per data file")
    parser.add_argument("--live", type=int, default=1000, help="--bulk compact: live files")
    parser.add_argument("--output", default=str(RESULTS / "planning.json"))
    parser.add_argument("--keep", help="build the warehouse in this new folder and keep it")
    parser.add_argument(
        "--linked",
        action="store_true",
        help="grow: commits after the first add hard links of its files (see _linked_commit)",
    )
    parser.add_argument("--java-count", metavar="DIR", help="count db.t in DIR with Flink too")
    parser.add_argument(
        "--java-read", metavar="DIR", help="read db.t in DIR with Java's API too, compared in full"
    )
    parser.add_argument(
        "--measure",
        nargs="+",
        metavar="DIR",
        help="only measure the kept tables in DIR... (each in a child process; see measure_kept)",
    )
    parser.add_argument("--label", default="", help="--measure: a label stored with the rows")
    parser.add_argument("--measure-one", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.java_read:
        print(json.dumps(java_read(args.java_read), default=str))
        return
    if args.java_count:
        print(json.dumps(java_count(args.java_count), default=str))
        return
    if args.measure_one:
        print(json.dumps(measure_kept(args.measure_one, args.reps)))
        return
    if args.measure:
        measured = measure_each(args.measure, args.reps)
        out = Path(args.output)
        report = json.loads(out.read_text()) if out.exists() else {}
        report.setdefault("runs", []).append(
            {"label": args.label, "load_average": os.getloadavg(), "rows": measured}
        )
        out.write_text(json.dumps(report, indent=1))
        print(f"written {args.output}", file=sys.stderr)
        return
    if args.bulk:
        rows = run_bulk(
            args.snapshots,
            args.files_per_commit,
            args.reps,
            args.mode,
            args.keep,
            args.partitions,
            args.rows,
            args.live,
        )
    else:
        if args.mode == "compact":
            parser.error("--mode compact needs --bulk")
        rows = run(
            args.snapshots, args.files_per_commit, args.reps, args.mode, args.keep, args.linked
        )
    report = {"load_average": os.getloadavg(), "rows": rows}
    Path(args.output).write_text(json.dumps(report, indent=1))
    print(f"written {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
