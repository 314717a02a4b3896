"""Merge engines against Apache Paimon 1.3.1 (Flink): twins of one table, four reads.

Each case creates the same table through Flink (``java_t``) and paimon-sql (``ours``) and runs
the same statements on both; then Flink and paimon-sql each read both tables, and all four reads
agree (Flink's read of its own table is the truth: nothing here states an expected value). The
cases are those of a twin hunt where paimon-sql stored or read other rows than Java: partial-
update sequence groups folding a lower group sequence with ``aggReversed``, and the ``listagg``
delimiter there.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_GROUP = (
    "CREATE TABLE {t} (k INT NOT NULL, a STRING, b INT, g INT, PRIMARY KEY (k) NOT ENFORCED) "
    "WITH ('bucket' = '1', 'merge-engine' = 'partial-update', 'fields.g.sequence-group' = 'a,b', "
    "'fields.a.aggregate-function' = 'listagg', 'fields.b.aggregate-function' = '{b}'{extra})"
)
_N = "CAST(NULL AS INT)"
_LOWER = (
    f"INSERT INTO {{t}} VALUES (1, 'x', 1, 2), (2, 'p', 1, 1), (3, 'x', {_N}, 2)",  # noqa: S608
    f"INSERT INTO {{t}} VALUES (1, 'y', {_N}, 1), (2, 'q', 2, 2), (3, 'y', 3, 1)",  # noqa: S608
    "INSERT INTO {t} VALUES (1, 'z', 3, 1), (2, 'r', 5, 0), (3, 'z', 4, 1)",
)


def _float_rounds(*, group: bool = False) -> tuple[str, ...]:
    """Three INSERTs giving each of six keys one order of the values of each column."""
    values = {
        "d": ("1.0E16", "1.0", "-1.0E16"),
        "f": ("16777216", "1", "-16777216"),
        "pd": ("1.0E308", "10.0", "0.1"),
        "pf": ("3.0E38", "10", "0.1"),
    }
    types = {"d": "DOUBLE", "f": "FLOAT", "pd": "DOUBLE", "pf": "FLOAT"}
    orders = list(itertools.permutations(range(3)))
    statements = []
    for step in range(3):
        rows = []
        for k, order in enumerate(orders):
            cells = [f"CAST({values[c][order[step]]} AS {types[c]})" for c in values]
            rows.append(f"({k}, {', '.join(cells)}{f', {step}' if group else ''})")
        statements.append(f"INSERT INTO {{t}} VALUES {', '.join(rows)}")  # noqa: S608
    return tuple(statements)


CASES = {
    **{
        f"group_{b}": (_GROUP.format(t="{t}", b=b, extra=""), _LOWER)
        for b in ("last_value", "first_value", "last_non_null_value", "first_non_null_value", "sum")
    },
    "group_listagg_delimiter": (
        _GROUP.format(t="{t}", b="last_value", extra=", 'fields.a.list-agg-delimiter' = '|'"),
        _LOWER,
    ),
    # compacted at every write (lookup: into a level below the kept files; DV: marked)
    **{
        f"group_first_value_{name}": (
            _GROUP.format(t="{t}", b="first_value", extra=extra),
            (*_LOWER, "INSERT INTO {t} VALUES (1, 'u', 9, 0), (3, 'u', 8, 5)"),
        )
        for name, extra in (
            ("lookup", ", 'changelog-producer' = 'lookup'"),
            ("dv", ", 'deletion-vectors.enabled' = 'true'"),
        )
    },
    # a -D under remove-record-on-delete starts the row afresh from its NOT NULL fields (Java's
    # initRow), so a later sum starts from the deleted row's value; nullable fields from NULL
    "aggregation_remove_on_delete_not_null": (
        "CREATE TABLE {t} (k INT NOT NULL, n INT NOT NULL, m INT NOT NULL, f INT, s STRING, "
        "PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'aggregation.remove-record-on-delete' = 'true', 'fields.n.aggregate-function' = 'sum', "
        "'fields.m.aggregate-function' = 'max', 'fields.f.aggregate-function' = 'first_value', "
        "'fields.s.aggregate-function' = 'listagg')",
        (
            "INSERT INTO {t} VALUES (1, 5, 9, 1, 'a'), (2, 1, 1, 2, 'x'), (3, 4, 4, 3, 'p')",
            "DELETE FROM {t} WHERE k IN (1, 3)",
            "INSERT INTO {t} VALUES (1, 7, 2, 4, 'b'), (2, 2, 0, 5, 'y')",
            f"INSERT INTO {{t}} VALUES (1, 1, 3, {_N}, CAST(NULL AS STRING))",  # noqa: S608
        ),
    ),
    # sums and products wrap around in the column's integer type, a FLOAT sum overflows to
    # infinity, as Java's arithmetic (with retractions: the -U/-D of an UPDATE through Flink)
    "aggregation_overflow": (
        "CREATE TABLE {t} (k INT NOT NULL, n INT, b TINYINT, p SMALLINT, l BIGINT, f FLOAT, "
        "dp DECIMAL(6, 2), PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', "
        "'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
        "'fields.b.aggregate-function' = 'sum', 'fields.p.aggregate-function' = 'product', "
        "'fields.l.aggregate-function' = 'product', 'fields.f.aggregate-function' = 'sum', "
        "'fields.dp.aggregate-function' = 'product')",
        # a DECIMAL product is rounded half-up at each step (1.15 * 1.10 = 1.27), NULL when too
        # wide, and the next value starts it again
        tuple(
            "INSERT INTO {t} VALUES (1, 2000000000, CAST(100 AS TINYINT), CAST(300 AS SMALLINT), "  # noqa: S608
            f"CAST({big} AS BIGINT), CAST(3.0E38 AS FLOAT), CAST({d1} AS DECIMAL(6, 2))), "
            "(2, -2000000000, CAST(-100 AS TINYINT), CAST(-7 AS SMALLINT), CAST(-3 AS BIGINT), "
            f"CAST(-3.0E38 AS FLOAT), CAST({d2} AS DECIMAL(6, 2)))"
            for big, d1, d2 in (
                (3037000499, 1.15, 999.99),
                (3037000499, 1.10, 999.99),
                (5, 1.10, 5),
            )
        ),
    ),
    # FLOAT and DOUBLE sums and products: Java adds and multiplies record by record in merge
    # order, rounding in the column's type at each step, so the order decides the result (1e16 +
    # 1 is 1e16; 1e308 * 10 is infinite). Every order of three values, one key each.
    "aggregation_float_order": (
        "CREATE TABLE {t} (k INT NOT NULL, d DOUBLE, f FLOAT, pd DOUBLE, pf FLOAT, "
        "PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.d.aggregate-function' = 'sum', 'fields.f.aggregate-function' = 'sum', "
        "'fields.pd.aggregate-function' = 'product', 'fields.pf.aggregate-function' = 'product')",
        _float_rounds(),
    ),
    # the same in a partial-update sequence group
    "partial_update_float_order": (
        "CREATE TABLE {t} (k INT NOT NULL, d DOUBLE, f FLOAT, pd DOUBLE, pf FLOAT, g INT, "
        "PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'partial-update', "
        "'fields.d.aggregate-function' = 'sum', 'fields.f.aggregate-function' = 'sum', "
        "'fields.g.sequence-group' = 'd,f,pd,pf', "
        "'fields.pd.aggregate-function' = 'product', 'fields.pf.aggregate-function' = 'product')",
        _float_rounds(group=True),
    ),
}
# 'sequence.field.sort-order' = 'descending' is not compared here: Paimon 1.3's comparator cache
# keys leave the order out, so one JVM reads a descending table in whichever order it generated
# first for those types, and its write buffer sorts one write ascending (fixed in 2.0). Checked
# against Java 1.4.2 row by row instead: tests/interop/paimon20/test_sequence_order.py.


@pytest.mark.parametrize("case", list(CASES))
def test_merges_like_flink(flink: FlinkOracle, tmp_path: Path, case: str):
    ddl, statements = CASES[case]
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(ddl.format(t="db.ours"))
    flink.run(warehouse, ddl.format(t="java_t"))
    for statement in statements:
        session.sql(statement.format(t="db.ours"))
        flink.run(warehouse, statement.format(t="java_t"))
    session.close()
    _, truth = flink.read(warehouse, "java_t")
    _, flink_ours = flink.read(warehouse, "ours")
    assert_same_rows(flink_ours, truth, context=f"{case}: Flink on ours vs its own")
    session = paimon_sql.connect(warehouse)
    try:
        for name in ("java_t", "ours"):
            _, rows = arrow_rows(session.sql(f"SELECT * FROM db.{name}").to_arrow_table())  # noqa: S608
            assert_same_rows(rows, truth, context=f"{case}: paimon-sql on {name}")
    finally:
        session.close()


def test_remove_record_on_sequence_group_refused_by_name(flink: FlinkOracle, tmp_path: Path):
    """'partial-update.remove-record-on-sequence-group' is not implemented: CREATE refuses it,
    and a table Flink made and wrote with it is neither read nor written (it was read as if the
    option were absent, and failed at the first DELETE's retraction)."""
    ddl = (
        "CREATE TABLE {t} (k INT NOT NULL, a STRING, g INT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
        "'bucket' = '1', 'merge-engine' = 'partial-update', 'fields.g.sequence-group' = 'a', "
        "'partial-update.remove-record-on-sequence-group' = 'g')"
    )
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    name = "partial-update.remove-record-on-sequence-group"
    with pytest.raises(UnsupportedFeatureError, match=name):
        session.sql(ddl.format(t="db.ours"))
    flink.run(warehouse, ddl.format(t="java_t"))
    flink.run(warehouse, "INSERT INTO java_t VALUES (1, 'x', 1), (2, 'y', 1)")
    flink.run(warehouse, "DELETE FROM java_t WHERE k = 2")
    with pytest.raises(UnsupportedFeatureError, match=name):
        session.sql("SELECT * FROM db.java_t").fetchall()
    with pytest.raises(UnsupportedFeatureError, match=name):
        session.sql("INSERT INTO db.java_t VALUES (3, 'z', 1)")
    session.close()
