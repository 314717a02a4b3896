"""paimon_diff and paimon_explain_key on Java-written tables, and paimon_diff against a dict model.

The expected answers never come from the functions under test: a diff is checked against the two
versions read separately (each read is what the Java-compatibility suites check) and folded in
plain Python, or against a model of the statements that were run; an explanation is checked
against the table's read of that key and against the files' own metadata.
"""

# ruff: noqa: S608 - the statements are test inputs built from fixture names and generated ints
from __future__ import annotations

import collections
import itertools
import shutil
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paimon_sql
from paimon_sql.engine.debug import diff, explain_key
from paimon_sql.errors import ArgumentError, SnapshotNotFoundError
from tests.fixtures import FIXTURES

CPP = FIXTURES / "paimon-cpp" / "test" / "test_data" / "parquet"
JAVA09 = FIXTURES / "generated-paimon-java-0.9" / "warehouse"


def _rows(session, name, snapshot):
    return session.sql(f"SELECT * FROM {name} VERSION AS OF {snapshot}").fetchall()


def _expected_keyed(before, after, names, keys):
    index = [names.index(k) for k in keys]
    old = {tuple(r[i] for i in index): dict(zip(names, r, strict=True)) for r in before}
    new = {tuple(r[i] for i in index): dict(zip(names, r, strict=True)) for r in after}
    out: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for key in old.keys() | new.keys():
        a, b = old.get(key), new.get(key)
        if a is None:
            out[key] = ("added", None, b, None)
        elif b is None:
            out[key] = ("removed", a, None, None)
        elif a != b:
            changed = [n for n in names if n not in keys and a[n] != b[n]]
            out[key] = ("changed", a, b, changed)
    return out


@pytest.mark.parametrize(
    "name",
    [
        "pk_table_scan_and_read_dv",
        "pk_table_scan_and_read_mor",
        "pk_table_scan_and_read_first_row",
        "pk_table_partial_update",
        "pk_table_with_alter_table",
    ],
)
def test_diff_of_java_tables_folds_the_two_reads(name):
    session = paimon_sql.connect(str(CPP))
    table = session.table(f"{name}.{name}")
    ids = table.snapshot_ids()
    checked = 0
    for start in ids:
        for end in ids:
            if start >= end:
                continue
            if table.snapshot(start).schema_id != table.snapshot(end).schema_id:
                continue  # columns differ: the model below compares one schema
            schema = table.schema(table.snapshot(end).schema_id)
            names, keys = list(schema.field_names), list(schema.primary_keys)
            expected = _expected_keyed(
                _rows(session, f"{name}.{name}", start),
                _rows(session, f"{name}.{name}", end),
                names,
                keys,
            )
            got = {}
            for r in diff(table, table.snapshot(start), table.snapshot(end)).to_pylist():
                key = tuple(r[k] for k in keys)
                got[key] = (r["change"], r["before"], r["after"], r["changed_columns"])
            assert got == expected, (start, end)
            checked += 1
    assert checked >= 1


def test_diff_of_a_table_without_key_is_a_multiset_difference():
    session = paimon_sql.connect(str(JAVA09))
    table = session.table("db.append_tags")
    ids = table.snapshot_ids()
    for start, end in itertools.pairwise(ids):
        if table.snapshot(start).schema_id != table.snapshot(end).schema_id:
            continue
        before = collections.Counter(_rows(session, "db.append_tags", start))
        after = collections.Counter(_rows(session, "db.append_tags", end))
        names = list(table.schema(table.snapshot(end).schema_id).field_names)
        got_added: collections.Counter[tuple[Any, ...]] = collections.Counter()
        got_removed: collections.Counter[tuple[Any, ...]] = collections.Counter()
        for r in diff(table, table.snapshot(start), table.snapshot(end)).to_pylist():
            image = r["after"] if r["change"] == "added" else r["before"]
            (got_added if r["change"] == "added" else got_removed)[
                tuple(image[n] for n in names)
            ] += 1
        assert got_added == after - before
        assert got_removed == before - after


def test_diff_refuses_a_start_after_the_end():
    table = paimon_sql.connect(str(JAVA09)).table("db.pk_dedup")
    with pytest.raises(ArgumentError, match="swap them"):
        diff(table, table.snapshot(2), table.snapshot(1))


# --- explain_key ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "pk_table_scan_and_read_dv",
        "pk_table_scan_and_read_mor",
        "pk_table_scan_and_read_first_row",
        "pk_09",
    ],
)
def test_explain_key_agrees_with_the_read_and_the_files(name):
    session = paimon_sql.connect(str(CPP))
    table = session.table(f"{name}.{name}")
    keys = list(table.latest_schema.primary_keys)
    names = list(table.latest_schema.field_names)
    rows = session.sql(f"SELECT * FROM {name}.{name}").fetchall()
    for row in rows:
        values = dict(zip(names, row, strict=True))
        explained = explain_key(table, {k: values[k] for k in keys}).to_pylist()
        result, versions = explained[0], explained[1:]
        assert result["verdict"] == "result"
        assert result["row"] == values  # what the read returned for this key
        winners = [v for v in versions if v["verdict"] == "wins"]
        assert len(winners) == 1, explained
        assert winners[0]["row"] == values
        assert winners[0]["sequence_number"] == result["sequence_number"]
        for v in versions:
            assert v["file"].startswith("data-")
            assert v["level"] >= 0
            assert v["added_by_snapshot"] in table.snapshot_ids()
            assert all(v["row"][k] == values[k] for k in keys)


def test_explain_key_merges_for_partial_update():
    session = paimon_sql.connect(str(CPP))
    name = "pk_table_partial_update"
    table = session.table(f"{name}.{name}")
    explained = explain_key(table, {"k0": 1, "k1": 1}).to_pylist()
    assert explained[0]["row"] == {"k0": 1, "k1": 1, "v0": 133.3, "v1": False, "v2": "banana"}
    assert {v["verdict"] for v in explained[1:]} == {"merged"}
    assert len(explained) >= 3


def test_explain_key_bad_keys():
    session = paimon_sql.connect(str(CPP))
    name = "pk_table_scan_and_read_dv"
    table = session.table(f"{name}.{name}")
    with pytest.raises(ArgumentError, match="pass them as a struct"):
        explain_key(table, 1)
    with pytest.raises(ArgumentError, match="primary key is"):
        explain_key(table, {"f0": "Alice"})
    append = paimon_sql.connect(str(JAVA09)).table("db.append_tags")
    with pytest.raises(ArgumentError, match="no primary key"):
        explain_key(append, 1)


def test_functions_in_the_shell_and_plain_duckdb(tmp_path):
    con = duckdb.connect()
    paimon_sql.install(con, str(CPP))
    name = "pk_table_scan_and_read_dv"
    query = (
        f"SELECT verdict, deleted_by_dv FROM paimon_explain_key('{name}.{name}', "
        "{'f0': 'Alice', 'f1': 10, 'f2': 1})"
    )
    assert con.sql(query).fetchall() == [
        ("result", None),
        ("wins", False),
        ("deleted by deletion vector", True),
    ]
    session = paimon_sql.connect(str(CPP))
    assert session.sql(query).fetchall() == con.sql(query).fetchall()
    changes = f"SELECT change, count(*) FROM paimon_diff('{name}.{name}', 1, 6) GROUP BY ALL"
    assert sorted(session.sql(changes).fetchall()) == sorted(con.sql(changes).fetchall())


# --- against a model --------------------------------------------------------------------------

_ops = st.lists(
    st.tuples(
        st.sampled_from(["upsert", "delete", "compact"]),
        st.lists(st.integers(0, 12), min_size=1, max_size=5),
        st.integers(0, 3),
    ),
    min_size=2,
    max_size=7,
)


@pytest.mark.slow
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_ops, dv=st.booleans())
def test_diff_matches_a_dict_model(tmp_path_factory, ops, dv):
    warehouse = tmp_path_factory.mktemp("wh")
    session = paimon_sql.connect(str(warehouse), create=True)
    session.sql("CREATE DATABASE db")
    options = "'bucket' = '2'" + (", 'deletion-vectors.enabled' = 'true'" if dv else "")
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ({options})"
    )
    model: dict[int, int] = {}
    states: list[tuple[int, dict[int, int]]] = []
    table = session.table("db.t")
    for op, ids, value in ops:
        if op == "upsert":
            values = ", ".join(f"({i}, {value})" for i in sorted(set(ids)))
            session.sql(f"INSERT INTO db.t VALUES {values}")
            model.update(dict.fromkeys(ids, value))
        elif op == "delete":
            session.sql(f"DELETE FROM db.t WHERE id IN ({', '.join(map(str, ids))})")
            for i in ids:
                model.pop(i, None)
        else:
            session.sql("CALL sys.compact(table => 'db.t')")
        latest = table.latest_snapshot_id()
        if latest is None:
            continue  # nothing committed yet (a delete or compaction of the empty table)
        if not states or states[-1][0] != latest:
            states.append((latest, dict(model)))
        else:
            states[-1] = (latest, dict(model))
    for (a, old), (b, new) in itertools.pairwise(states):
        expected: dict[int, tuple[Any, ...]] = {}
        for key in old.keys() | new.keys():
            if key not in old:
                expected[key] = ("added", None, new[key])
            elif key not in new:
                expected[key] = ("removed", old[key], None)
            elif old[key] != new[key]:
                expected[key] = ("changed", old[key], new[key])
        got = {
            r["id"]: (
                r["change"],
                r["before"]["v"] if r["before"] else None,
                r["after"]["v"] if r["after"] else None,
            )
            for r in diff(table, table.snapshot(a), table.snapshot(b)).to_pylist()
        }
        assert got == expected, (a, b)
    shutil.rmtree(warehouse)


def test_bad_arguments_raise_paimon_errors_through_sql(tmp_path):
    shutil.copytree(JAVA09, tmp_path / "wh")
    session = paimon_sql.connect(str(tmp_path / "wh"))
    with pytest.raises(ArgumentError, match="swap them"):
        session.sql("SELECT * FROM paimon_diff('db.pk_dedup', 3, 1)").fetchall()
    with pytest.raises(ArgumentError, match=r"'x' is not a value of key column 'id' \(INT"):
        session.sql("SELECT * FROM paimon_explain_key('db.pk_dedup', 'x')").fetchall()
    with pytest.raises(SnapshotNotFoundError, match="snapshot 99"):
        session.sql("SELECT * FROM paimon_scan('db.pk_dedup', snapshot := 99)").fetchall()
    assert sorted(p.name for p in (tmp_path / "wh" / "db.db" / "pk_dedup").iterdir()) == sorted(
        p.name for p in (JAVA09 / "db.db" / "pk_dedup").iterdir()
    )  # nothing written


def test_explain_key_casts_the_key_to_the_key_column_s_type(tmp_path):
    """The key ``7`` of a STRING key is '7' and ``'7'`` of an INT key is 7, as the cast of the
    argument allows: each finds the row the read returns (a number's bucket hash once sent the
    STRING key's search to another bucket: "no row")."""
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.s (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '4')"
    )
    session.sql(
        "CREATE TABLE db.i (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '4')"
    )
    session.sql("INSERT INTO db.s SELECT CAST(i AS VARCHAR), i FROM range(40) r(i)")
    session.sql("INSERT INTO db.i SELECT i, i FROM range(40) r(i)")
    for i in range(40):
        for name, argument, key in (("db.s", i, str(i)), ("db.i", str(i), i)):
            result = explain_key(session.table(name), argument).to_pylist()[0]
            assert result["row"] == {"k": key, "v": i}, (name, argument)
