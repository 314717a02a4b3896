"""Shared helpers of the commit-protocol reliability tests: worker processes and the table audit.

Worker roles (`start` runs one in a process forked from a server that imported paimon_sql once):

* `insert_worker`: `n` INSERT statements of `ROWS` rows each, taking the tables (comma-separated)
  in turn; after each statement reports success its table and first id are appended to the log
  (flushed and fsynced), so the parent knows exactly which statements succeeded. A
  `paimon_sql.errors` failure is logged, anything else is fatal.
* `maintain_worker`: until the stop file exists, a random mix of manual expiration, compaction, tag
  creation and tag deletion.
* `kill_worker`: sets `ready`, waits for `go`, then a seeded mix of inserts, compactions, tag
  creations and expirations for the parent to SIGKILL at a random moment; with `at` > 0 the process
  kills itself just before its `at`-th metadata mutation (a link, a metadata write or a delete), so
  every step of every protocol gets hit, not only the slow ones.

`audit` checks a table the way every test here ends: contiguous snapshot ids, every listed snapshot
and tag readable, every reported statement present exactly once, and after ``remove_orphan_files``
no file that nothing references and no temporary file.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess
    from multiprocessing.synchronize import Event
    from pathlib import Path

ROWS = 3
"""Rows per INSERT statement: ids ``base, base + 1, base + 2`` (a statement lands whole or not)."""

APPEND_DDL = (
    "CREATE TABLE {t} (id BIGINT, w INT, i INT) WITH ('snapshot.num-retained.min' = '1', "
    "'snapshot.num-retained.max' = '3', 'snapshot.time-retained' = '1 ms', "
    "'commit.max-retries' = '60')"
)
PK_DDL = (
    "CREATE TABLE {t} (id BIGINT NOT NULL, w INT, i INT, PRIMARY KEY (id) NOT ENFORCED) WITH "
    "('bucket' = '2', 'snapshot.num-retained.min' = '1', 'snapshot.num-retained.max' = '3', "
    "'snapshot.time-retained' = '1 ms', 'commit.max-retries' = '60')"
)


def first_id(worker: int, statement: int) -> int:
    """The first id of a worker's statement (ids never collide across workers)."""
    return worker * 1_000_000 + statement * ROWS


def insert_sql(table: str, worker: int, statement: int) -> str:
    """The INSERT of one statement: `ROWS` rows, ids from `first_id`."""
    base = first_id(worker, statement)
    values = ", ".join(f"({base + r}, {worker}, {statement})" for r in range(ROWS))
    return f"INSERT INTO {table} VALUES {values}"  # noqa: S608 - test data


def _append(log: str, line: str) -> None:
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


# --- replayed races ---------------------------------------------------------------------------


def racing(monkeypatch: Any, other: Any, *statements: str) -> list[str]:
    """Patch the committer: the first commit runs `statements` on session `other` first.

    A race replayed deterministically: another writer's statements land between this statement's
    read and its commit. Returns the list the statements are added to once they ran.
    """
    from paimon_sql.commit import publish

    commit = publish.Committer.commit
    ran: list[str] = []

    def patched(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not ran:
            ran.extend(statements)
            for statement in statements:
                other.sql(statement)
        return commit(self, *args, **kwargs)

    monkeypatch.setattr(publish.Committer, "commit", patched)
    return ran


def left_behind(session: Any, name: str = "db.t") -> list[str]:
    """Files of table `name` no snapshot references (a failed statement must leave none)."""
    from paimon_sql.catalog import Identifier
    from paimon_sql.commit.orphans import remove_orphan_files

    table = session.catalog.load_table(Identifier.parse(name))
    return list(remove_orphan_files(table, older_than_ms=2**62, dry_run=True))


def run_workers(target: Callable[..., None], logs: list[Path], *args: Any) -> None:
    """Run `target(*args, worker, log)` in one process per log at once; each must exit cleanly."""
    ctx = context()
    workers = [start(ctx, target, *args, w, str(log)) for w, log in enumerate(logs)]
    for process in workers:
        process.join(300)
        assert process.exitcode == 0


# --- worker roles ---------------------------------------------------------------------------


def insert_worker(warehouse: str, tables: str, n: int, worker: int, log: str) -> None:
    """The ``insert`` role (see the module doc)."""
    import paimon_sql
    from paimon_sql.errors import PaimonSqlError

    session = paimon_sql.connect(warehouse)
    names = tables.split(",")
    for statement in range(n):
        table = names[statement % len(names)]
        try:
            session.sql(insert_sql(table, worker, statement))
        except PaimonSqlError as err:
            where = " <- ".join(
                f"{f.name}:{f.lineno}"
                for f in reversed(traceback.extract_tb(err.__traceback__)[-6:])
            )
            _append(
                log, f"failed {type(err).__name__}: {str(err).splitlines()[0][:200]} at {where}"
            )
            continue
        _append(log, f"ok {table} {first_id(worker, statement)}")


def _logged(warehouse: str, log: str, statements: Iterator[tuple[str, str]]) -> None:
    """Run each ``(SQL, label)`` of `statements` in one session, logging ``ok <label>`` once it
    succeeded and ``failed <error>`` when it raised a `paimon_sql.errors` error."""
    import paimon_sql
    from paimon_sql.errors import PaimonSqlError

    session = paimon_sql.connect(warehouse)
    for sql, label in statements:
        try:
            session.sql(sql)
        except PaimonSqlError as err:
            _append(log, f"failed {type(err).__name__}: {str(err).splitlines()[0][:200]}")
            continue
        _append(log, f"ok {label}")


def key_worker(warehouse: str, table: str, parts: int, n: int, worker: int, log: str) -> None:
    """`n` INSERTs of 4 keys from a small shared key space (``id`` 0..23, ``p`` 1..`parts`).

    Workers overlap on keys, so their dynamic-bucket assignments race; each statement's value is
    its number, ``worker * 1000 + statement``, logged ``ok <table> <number>`` once it succeeded.
    """
    rng = random.Random(worker)

    def statements() -> Iterator[tuple[str, str]]:
        for statement in range(n):
            number = worker * 1000 + statement
            rows = [(rng.randint(1, parts), i, number) for i in rng.sample(range(24), 4)]
            values = ", ".join(f"({p}, {i}, {v})" for p, i, v in rows)
            yield f"INSERT INTO {table} VALUES {values}", f"{table} {number}"  # noqa: S608

    _logged(warehouse, log, statements())


def increment_worker(warehouse: str, table: str, keys: int, n: int, worker: int, log: str) -> None:
    """`n` statements ``UPDATE … SET v = v + 1 WHERE k = <key>``, the key drawn from 0..`keys`-1.

    Logged ``ok <table> <key>`` once a statement reported success, so the parent can count each
    key's increments; a `paimon_sql.errors` failure is logged as ``failed <error>``.
    """
    rng = random.Random(worker)
    keys_drawn = (rng.randrange(keys) for _ in range(n))
    _logged(
        warehouse,
        log,
        ((f"UPDATE {table} SET v = v + 1 WHERE k = {k}", f"{table} {k}") for k in keys_drawn),  # noqa: S608
    )


def maintain_worker(warehouse: str, tables: str, stop: str, log: str) -> None:
    """The ``maintain`` role (see the module doc)."""
    import paimon_sql
    from paimon_sql.errors import PaimonSqlError

    session = paimon_sql.connect(warehouse)
    rng = random.Random(os.getpid())
    tags: list[tuple[str, str]] = []
    count = 0
    while not os.path.exists(stop):
        op = rng.choice(["expire", "expire", "compact", "tag", "tag", "delete_tag"])
        table = rng.choice(tables.split(","))
        try:
            if op == "expire":
                session.sql(f"CALL sys.expire_snapshots(table => '{table}', retain_max => 2)")
            elif op == "compact":
                session.sql(f"CALL sys.compact(table => '{table}')")
            elif op == "tag":
                name = f"t{count}"
                session.sql(f"CALL sys.create_tag(table => '{table}', tag => '{name}')")
                tags.append((table, name))
            elif tags:
                table, name = tags.pop(rng.randrange(len(tags)))
                session.sql(f"CALL sys.delete_tag(table => '{table}', tag => '{name}')")
        except PaimonSqlError as err:
            _append(log, f"failed {op} {type(err).__name__}: {str(err).splitlines()[0][:200]}")
        else:
            _append(log, f"ok {op}")
        count += 1
        time.sleep(rng.random() * 0.05)


def _arm_self_kill(at: int, log: str) -> None:
    """SIGKILL this process just before its `at`-th metadata mutation (noted in `log`)."""
    from paimon_sql.io import fileio

    seen = [0]

    def wrap(label: str, function):  # type: ignore[no-untyped-def]
        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen[0] += 1
            if seen[0] >= at:
                path = str(args[-1] if label == "link" else args[1])
                _append(log, f"killed before {label} {path.rsplit('/', 2)[-2]}/")
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)

        return wrapped

    for name in ("write_bytes", "delete"):
        setattr(fileio.FileIO, name, wrap(name, getattr(fileio.FileIO, name)))
    fileio.os.link = wrap("link", os.link)  # the create-if-absent of snapshot and tag files


def kill_worker(
    warehouse: str, table: str, seed: int, log: str, at: int, ready: Event, go: Event
) -> None:
    """The ``kill`` role (see the module doc): `ready`, wait for `go`, then work until killed."""
    import paimon_sql
    from paimon_sql.errors import PaimonSqlError

    session = paimon_sql.connect(warehouse)
    rng = random.Random(seed)
    ready.set()
    go.wait()
    if at > 0:
        _arm_self_kill(at, log)
    for step in range(10_000):
        op = rng.choice(["insert", "insert", "compact", "expire", "tag"])
        try:
            if op == "insert":
                worker = 100 + seed  # ids never repeat across runs
                _append(log, f"try {table} {first_id(worker, step)}")
                session.sql(insert_sql(table, worker, step))
                _append(log, f"ok {table} {first_id(worker, step)}")
            elif op == "compact":
                session.sql(f"CALL sys.compact(table => '{table}')")
            elif op == "expire":
                session.sql(f"CALL sys.expire_snapshots(table => '{table}', retain_max => 1)")
            else:
                session.sql(f"CALL sys.create_tag(table => '{table}', tag => 'k{seed}_{step}')")
        except PaimonSqlError as err:
            _append(log, f"failed {op} {type(err).__name__}: {str(err).splitlines()[0][:200]}")


def context() -> BaseContext:
    """Worker processes forked from a server that imported paimon_sql once (a fresh interpreter
    takes seconds to import it on a loaded machine)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["paimon_sql", __name__])
    return ctx


def start(ctx: BaseContext, target: Callable[..., None], *args: object) -> BaseProcess:
    """Start `target(*args)` in a worker process."""
    process = ctx.Process(target=target, args=args, daemon=True)  # type: ignore[attr-defined]
    process.start()
    return process


# --- the audit ------------------------------------------------------------------------------


@dataclass
class Audit:
    """What `audit` found; `problems` is empty for a healthy table."""

    snapshot_ids: list[int] = field(default_factory=list)
    rows: int = 0
    problems: list[str] = field(default_factory=list)
    orphans_removed: int = 0


def reported(log: Path, table: str) -> tuple[set[int], set[int], list[str]]:
    """For `table`: (first ids of the statements reported successful, of those only tried), and
    every failure line of the log."""
    ok: set[int] = set()
    tried: set[int] = set()
    failed: list[str] = []
    if not log.exists():
        return ok, tried, failed
    for line in log.read_text(encoding="utf-8").splitlines():
        word, _, rest = line.partition(" ")
        name, _, number = rest.partition(" ")
        if word == "ok" and name == table:
            ok.add(int(number))
        elif word == "try" and name == table:
            tried.add(int(number))
        elif word == "failed":
            failed.append(rest)
    return ok, tried - ok, failed


def _read_versions(session: Any, name: str, versions: list[str], found: Audit, when: str) -> None:
    for version in versions:  # each one reads completely
        query = f"SELECT count(*), sum(id) FROM {name} VERSION AS OF {version}"  # noqa: S608
        try:
            session.sql(query).fetchall()
        except Exception as err:  # noqa: BLE001 - every unreadable version is a problem to report
            found.problems.append(
                f"{when}version {version} unreadable: {type(err).__name__}: {err}"
            )


def _check_rows(
    session: Any, name: str, succeeded: set[int], uncertain: Collection[int], found: Audit
) -> None:
    present = [r[0] for r in session.sql(f"SELECT id FROM {name}").fetchall()]  # noqa: S608
    found.rows = len(present)
    if len(present) != len(set(present)):
        found.problems.append(f"{len(present) - len(set(present))} duplicate ids")
    have = set(present)
    lost = sorted(b for b in succeeded if b not in have)
    if lost:
        found.problems.append(f"LOST {len(lost)} reported statements, e.g. {lost[:5]}")
    for base in {i - i % 1_000_000 % ROWS for i in have}:
        whole = {base + r for r in range(ROWS)}
        if not whole <= have:
            found.problems.append(f"statement {base} is only partly there")
        elif base not in succeeded and base not in uncertain:
            found.problems.append(f"statement {base} is there but never reported success")


def _check_files(table: Any, found: Audit) -> None:
    from paimon_sql.commit.expire import used_file_names

    used = used_file_names(table)
    for root, _dirs, files in os.walk(table.path):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), table.path)
            top = rel.split(os.sep, 1)[0]
            if f.endswith(".tmp"):
                found.problems.append(f"temporary file left: {rel}")
            elif (top in ("manifest", "index") or f.startswith("data-")) and f not in used:
                found.problems.append(f"unreferenced file left after remove_orphan_files: {rel}")


def audit(
    warehouse: str, name: str, succeeded: set[int], uncertain: Collection[int] = frozenset()
) -> Audit:
    """Check table `name` (``db.t``) after the workers stopped (see the module doc).

    `succeeded`: first ids of statements that reported success (each must be there, whole, once);
    `uncertain`: statements that may or may not have landed (a killed one): whole or absent.
    """
    import paimon_sql
    from paimon_sql.catalog import Identifier
    from paimon_sql.commit.orphans import remove_orphan_files

    found = Audit()
    session = paimon_sql.connect(warehouse)
    table = session.catalog.load_table(Identifier.parse(name))
    ids = table.snapshot_ids()
    found.snapshot_ids = ids
    if ids and ids != list(range(ids[0], ids[-1] + 1)):
        found.problems.append(f"snapshot ids not contiguous: {ids}")
    if ids and table.earliest_snapshot_id() != ids[0]:
        found.problems.append(
            f"earliest {table.earliest_snapshot_id()} is not the first listed {ids[0]}"
        )
    tags = [f"'{t}'" for t in table.tag_names()]
    _read_versions(session, name, [str(i) for i in ids] + tags, found, "")
    _check_rows(session, name, succeeded, uncertain, found)
    session.changed(table)
    found.orphans_removed = len(remove_orphan_files(table, int(time.time() * 1000) + 60_000))
    table = session.catalog.load_table(Identifier.parse(name))
    _check_files(table, found)
    latest = table.latest_snapshot_id()
    tags = [f"'{t}'" for t in table.tag_names()]
    _read_versions(
        session,
        name,
        ([] if latest is None else [str(latest)]) + tags,
        found,
        "after remove_orphan_files, ",
    )
    _check_rows(session, name, succeeded, uncertain, found)
    return found
