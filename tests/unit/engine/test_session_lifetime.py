"""A session nobody closes is freed with its last reference: its DuckDB databases and threads too.

DuckDB keeps registered sources and functions in C++, out of sight of Python's collector; a
source holding the engine (and so its connection) made every unclosed session live until the
process ended, with DuckDB's worker threads of both its databases (a full test run ended with
~13,000). What DuckDB holds now holds only the connection-free `Sources`.
"""

from __future__ import annotations

import gc
import os
import weakref

import paimon_sql


def _threads() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/task"))


def _warehouse(path):
    with paimon_sql.connect(str(path), create=True) as session:
        session.sql("CREATE DATABASE d")
        session.sql("CREATE TABLE d.t (id INT, v VARCHAR)")
        session.sql("INSERT INTO d.t VALUES (1, 'a'), (2, 'b')")
    return str(path)


def _use_and_drop(warehouse: str) -> weakref.ref[object]:
    """A session used for a view of a table, a routing source of a ``paimon_*`` function, a
    system table and a write, then dropped unclosed: a weak reference to its engine."""
    session = paimon_sql.connect(warehouse)
    counted = session.sql("SELECT count(*) FROM d.t").fetchall()
    scanned = session.sql("SELECT * FROM paimon_scan('d.t')").fetchall()
    snapshots = session.sql('SELECT * FROM "d"."t$snapshots"').fetchall()
    session.sql("INSERT INTO d.t SELECT 3, 'c' WHERE false")
    assert (counted, len(scanned), len(snapshots)) == ([(2,)], 2, 1)
    return weakref.ref(session.engine)


def test_unclosed_sessions_are_freed_with_their_threads(tmp_path):
    warehouse = _warehouse(tmp_path)
    gc.collect()
    before = _threads()
    engines = [_use_and_drop(warehouse) for _ in range(5)]
    gc.collect()
    assert [e for e in engines if e() is not None] == []
    # each session had two DuckDB databases with their worker threads: all gone again
    assert _threads() <= before


def test_a_result_outlives_the_session_that_made_it(tmp_path):
    warehouse = _warehouse(tmp_path)
    relation = paimon_sql.connect(warehouse).sql("SELECT id FROM d.t ORDER BY id")
    scanned = paimon_sql.connect(warehouse).sql("SELECT id FROM paimon_scan('d.t') ORDER BY id")
    gc.collect()
    assert relation.fetchall() == [(1,), (2,)]
    assert scanned.fetchall() == [(1,), (2,)]
    assert paimon_sql.connect(warehouse).con.sql("SELECT count(*) FROM d.t").fetchall() == [(2,)]


def test_closing_an_installed_session_leaves_the_callers_connection_open(tmp_path):
    """`install` works on the caller's connection: closing its session drops the warehouse's views
    from it, and nothing else (the caller's own tables stay, the connection stays open)."""
    import duckdb

    warehouse = _warehouse(tmp_path)
    con = duckdb.connect()
    con.execute("CREATE TABLE mine AS SELECT 42 AS x")
    session = paimon_sql.install(con, warehouse)
    assert con.sql('SELECT count(*) FROM "d"."t"').fetchall() == [(2,)]
    session.close()
    assert con.sql("SELECT x FROM mine").fetchall() == [(42,)]
    views = con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    assert ("t",) not in views
    con.close()
