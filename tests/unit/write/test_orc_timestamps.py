"""TIMESTAMPs before 1970 with a sub-millisecond fraction are refused by name when writing ORC.

pyarrow's ORC writer stores them with a negative nanosecond field, which Apache Paimon (1.3 and
1.4, tests/interop/flink and tests/interop/paimon20) rejects when reading; whole milliseconds are
written (and Java reads them: ``orc_before_1970_millis`` in the Flink write cases).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow.orc as orc
import pytest

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def s(tmp_path: Path) -> paimon_sql.Session:
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    return session


def _files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "wh").rglob("data-*"))


@pytest.mark.parametrize(
    ("ddl", "value"),
    [
        ("ts TIMESTAMP(6)", "TIMESTAMP '1969-12-31 23:59:59.999999'"),
        ("ts TIMESTAMP(6)", "TIMESTAMP '1900-01-01 00:00:00.000001'"),
        ("ts TIMESTAMP(9)", "TIMESTAMP_NS '1969-12-31 23:59:59.000000001'"),
        ("ts ARRAY<TIMESTAMP(6)>", "[TIMESTAMP '1969-12-31 23:59:59.5001']"),
        ("ts ROW<a TIMESTAMP(6)>", "{'a': TIMESTAMP '1969-12-31 23:59:59.5001'}"),
    ],
)
def test_refused_and_nothing_written(s, tmp_path, ddl, value):
    s.sql(f"CREATE TABLE db.t (id INT, {ddl}) WITH ('file.format' = 'orc')")
    with pytest.raises(UnsupportedFeatureError, match=r"column 'ts' holds .*before 1970"):
        s.sql(f"INSERT INTO db.t VALUES (1, {value})")  # noqa: S608 - fixed test input
    assert s.sql("SELECT count(*) FROM db.t").fetchall() == [(0,)]
    assert s.sql('SELECT count(*) FROM "db"."t$snapshots"').fetchall() == [(0,)]
    assert _files(tmp_path) == []


def test_whole_milliseconds_and_parquet_are_written(s, tmp_path):
    s.sql("CREATE TABLE db.o (id INT, ts TIMESTAMP(6)) WITH ('file.format' = 'orc')")
    s.sql("INSERT INTO db.o VALUES (1, TIMESTAMP '1969-12-31 23:59:59.999'), (2, NULL)")
    s.sql("CREATE TABLE db.p (id INT, ts TIMESTAMP(6)) WITH ('file.format' = 'parquet')")
    s.sql("INSERT INTO db.p VALUES (1, TIMESTAMP '1969-12-31 23:59:59.999999')")
    (orc_file,) = [f for f in _files(tmp_path) if f.suffix == ".orc"]
    assert str(orc.read_table(orc_file).column("ts")[0]) == "1969-12-31 23:59:59.999000"
    assert str(s.sql("SELECT ts FROM db.p").fetchall()[0][0]) == "1969-12-31 23:59:59.999999"
