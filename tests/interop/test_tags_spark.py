"""Tags against Apache Paimon 0.9 (through Spark) as the oracle.

(a) paimon-sql tags a table it wrote; Spark reads every tag as paimon-sql does and lists them in
    ``t$tags``. (b) Spark tags a table it wrote; paimon-sql reads the tags, deletes one and renames
    another; Spark still reads the rest. (c) A tag paimon-sql writes is the file Java writes for the
    same snapshot, byte for byte (only ``tagCreateTime``, a clock reading, differs in value).
"""

from __future__ import annotations

import datetime
import json
import re
from typing import TYPE_CHECKING

import pytest
from sqlglot import exp

import paimon_sql
from tests.interop.harness import assert_rows_equal, spark_rows, spark_session, spark_sql

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.interop]

_CREATE_TIME = re.compile(r'"tagCreateTime" : \[ \d+, \d+, \d+, \d+, \d+(, \d+)*( \])')


def _ours(session, version: str | None = None):
    table = exp.to_table("db.t")
    if version is not None:
        table.set(
            "version",
            exp.Version(this="VERSION", kind="AS OF", expression=exp.Literal.string(version)),
        )
    relation = session.sql(exp.select("*").from_(table).sql("spark"))
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def _spark_tags(spark) -> dict[str, tuple[int, str | None]]:
    rows = spark_sql(spark, "SELECT tag_name, snapshot_id, time_retained FROM db.`t$tags`")
    return {r.tag_name: (r.snapshot_id, r.time_retained) for r in rows}


def _tag_text(warehouse: Path, name: str) -> str:
    return (warehouse / "db.db" / "t" / "tag" / ("tag-" + name)).read_text()


def test_spark_reads_the_tags_we_create(tmp_path):
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
        " WITH ('bucket' = '2')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    session.sql("INSERT INTO db.t VALUES (2, 'b2'), (3, 'c')")
    session.sql("DELETE FROM db.t WHERE id = 1")
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'plain', snapshot => 1)")
    session.sql(
        "CALL sys.create_tag(table => 'db.t', tag => 'kept', snapshot => 2, time_retained => '1 d')"
    )
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'renamed_later')")
    session.sql(
        "CALL sys.rename_tag(table => 'db.t', tag => 'renamed_later', target_tag => 'last')"
    )
    session.sql("INSERT INTO db.t VALUES (4, 'd')")

    spark = spark_session(warehouse)
    assert _spark_tags(spark) == {"plain": (1, None), "kept": (2, "PT24H"), "last": (3, None)}
    for tag in ("plain", "kept", "last"):
        assert_rows_equal(spark_rows(spark, "db.t", version=tag), _ours(session, tag))
    assert {r["id"] for r in _ours(session, "kept")} == {1, 2, 3}
    assert_rows_equal(spark_rows(spark, "db.t"), _ours(session))

    # Java manages the tags we made: it deletes one, and we see the change
    spark_sql(spark, "CALL sys.delete_tag(table => 'db.t', tag => 'plain')")
    assert session.table("db.t").tag_names() == ["kept", "last"]


def test_we_read_and_manage_the_tags_spark_creates(tmp_path):
    warehouse = tmp_path / "wh"
    spark = spark_session(warehouse)
    spark_sql(spark, "CREATE DATABASE db")
    spark_sql(
        spark,
        "CREATE TABLE db.t (id BIGINT, v STRING) USING paimon TBLPROPERTIES ('bucket' = '-1')",
    )
    spark_sql(spark, "INSERT INTO db.t VALUES (1, 'a')")
    spark_sql(spark, "INSERT INTO db.t VALUES (2, 'b')")
    spark_sql(spark, "INSERT INTO db.t VALUES (3, 'c')")
    spark_sql(spark, "CALL sys.create_tag(table => 'db.t', tag => 't1', snapshot => 1)")
    spark_sql(
        spark,
        "CALL sys.create_tag(table => 'db.t', tag => 't2', snapshot => 2, time_retained => '2 h')",
    )
    spark_sql(spark, "CALL sys.create_tag(table => 'db.t', tag => 't3', snapshot => 3)")

    session = paimon_sql.connect(warehouse)
    for tag in ("t1", "t2", "t3"):
        assert_rows_equal(_ours(session, tag), spark_rows(spark, "db.t", version=tag))
    rows = session.sql(
        'SELECT tag_name, snapshot_id, time_retained FROM db."t$tags" ORDER BY tag_name'
    )
    assert rows.fetchall() == [("t1", 1, None), ("t2", 2, "PT2H"), ("t3", 3, None)]
    t2 = _tag_text(warehouse, "t2")

    session.sql("CALL sys.delete_tag(table => 'db.t', tag => 't1')")
    session.sql("CALL sys.rename_tag(table => 'db.t', tag => 't2', target_tag => 'two')")
    assert _tag_text(warehouse, "two") == t2  # renamed, not rewritten: Java's nanoseconds survive
    assert _spark_tags(spark) == {"two": (2, "PT2H"), "t3": (3, None)}
    assert_rows_equal(
        spark_rows(spark, "db.t", version="two"), [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]
    )
    assert_rows_equal(spark_rows(spark, "db.t", version="t3"), _ours(session, "t3"))
    with pytest.raises(Exception, match="t1"):
        spark_rows(spark, "db.t", version="t1")


def _normalised(text: str) -> str:
    return _CREATE_TIME.sub('"tagCreateTime" : [ <clock> ]', text)


@pytest.mark.parametrize("writer", ["spark", "paimon-sql"])
def test_our_tag_file_is_the_file_java_writes(tmp_path, writer):
    warehouse = tmp_path / "wh"
    spark = spark_session(warehouse)
    if writer == "spark":
        spark_sql(spark, "CREATE DATABASE db")
        spark_sql(spark, "CREATE TABLE db.t (id BIGINT, v STRING) USING paimon")
        spark_sql(spark, "INSERT INTO db.t VALUES (1, 'a')")
        session = paimon_sql.connect(warehouse)
    else:
        session = paimon_sql.connect(warehouse, create=True)
        session.sql("CREATE DATABASE db")
        session.sql("CREATE TABLE db.t (id BIGINT, v STRING)")
        session.sql("INSERT INTO db.t VALUES (1, 'a')")
    spark_sql(spark, "CALL sys.create_tag(table => 'db.t', tag => 'java_plain', snapshot => 1)")
    spark_sql(
        spark,
        "CALL sys.create_tag(table => 'db.t', tag => 'java_kept', snapshot => 1,"
        " time_retained => '1 d')",
    )
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'ours_plain', snapshot => 1)")
    session.sql(
        "CALL sys.create_tag(table => 'db.t', tag => 'ours_kept', snapshot => 1,"
        " time_retained => '1 d')"
    )

    java_plain, ours_plain = _tag_text(warehouse, "java_plain"), _tag_text(warehouse, "ours_plain")
    java_kept, ours_kept = _tag_text(warehouse, "java_kept"), _tag_text(warehouse, "ours_kept")
    if writer == "spark":
        assert ours_plain == java_plain
        assert _normalised(ours_kept) == _normalised(java_kept)
    else:
        # Java 0.9 rewrites our snapshot with the fields it knows: the same keys in the same order,
        # less the list sizes (Paimon 1.1+) 0.9 drops, plus 0.9's changelogRecordCount 0.
        known = json.loads(java_kept)
        ours = json.loads(ours_kept)
        assert [k for k in ours if k in known] == [k for k in known if k in ours]
        assert {k: v for k, v in ours.items() if k in known and k != "tagCreateTime"} == {
            k: v for k, v in known.items() if k in ours and k != "tagCreateTime"
        }
        assert set(ours) - set(known) <= {"baseManifestListSize", "deltaManifestListSize"}
        assert set(known) - set(ours) <= {"changelogRecordCount"}
        assert list(json.loads(ours_plain)) == [k for k in ours if not k.startswith("tag")]
    for text in (java_kept, ours_kept):
        assert _CREATE_TIME.search(text) is not None
        assert text.endswith('"tagTimeRetained" : 86400.000000000\n}')
    # and each side reads the other's tags the same way
    for tag in ("java_plain", "java_kept", "ours_plain", "ours_kept"):
        assert_rows_equal(spark_rows(spark, "db.t", version=tag), _ours(session, tag))


def test_automatic_tags_agree_across_writers(tmp_path):
    """Daily process-time tags: the first commit tags the day before; the other writer resumes."""
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT, v STRING) WITH ('tag.automatic-creation' = 'process-time',"
        " 'tag.creation-period' = 'daily', 'tag.default-time-retained' = '7 d')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a')")
    table = session.table("db.t")
    day = datetime.datetime.fromtimestamp(table.snapshot(1).time_millis / 1000).date()
    ours = [(day - datetime.timedelta(days=1)).isoformat()]
    assert table.tag_names() == ours

    spark = spark_session(warehouse)
    spark_sql(
        spark, "INSERT INTO db.t VALUES (2, 'b')"
    )  # Java resumes after our tag: same day, no tag
    session.sql("INSERT INTO db.t VALUES (3, 'c')")
    assert list(_spark_tags(spark)) == ours
    assert _spark_tags(spark)[ours[0]] == (1, "PT168H")
    assert_rows_equal(spark_rows(spark, "db.t", version=ours[0]), [{"id": 1, "v": "a"}])

    # the same table made and first written by Java: the same tag name on its first snapshot
    other = tmp_path / "java"
    java = spark_session(other)
    spark_sql(java, "CREATE DATABASE db")
    spark_sql(
        java,
        "CREATE TABLE db.t (id BIGINT, v STRING) USING paimon TBLPROPERTIES"
        " ('tag.automatic-creation' = 'process-time', 'tag.default-time-retained' = '7 d')",
    )
    spark_sql(java, "INSERT INTO db.t VALUES (1, 'a')")
    theirs = paimon_sql.connect(other)
    theirs.sql("INSERT INTO db.t VALUES (2, 'b')")  # we resume after Java's tag
    java_table = theirs.table("db.t")
    java_day = datetime.datetime.fromtimestamp(java_table.snapshot(1).time_millis / 1000).date()
    assert java_table.tag_names() == [(java_day - datetime.timedelta(days=1)).isoformat()]
    assert java_table.tag(java_table.tag_names()[0]).id == 1
