"""Tags from SQL (CALL sys.*_tag procedures) and the commit layer: files as Java writes them,
errors, time travel, the $tags system table, retention, and automatic creation with injected
clocks."""

from __future__ import annotations

import datetime
import json
import pathlib

import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql.commit import tags
from paimon_sql.errors import (
    AlreadyExistsError,
    OptionError,
    SnapshotNotFoundError,
    SqlError,
    UnsupportedFeatureError,
)
from paimon_sql.format.snapshot import snapshot_to_json

FIXED = datetime.datetime(2024, 6, 25, 10, 30, 5, 123456)


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.t (id INT, v STRING)")
    s.sql("INSERT INTO db.t VALUES (1, 'v1')")
    s.sql("INSERT INTO db.t VALUES (2, 'v2')")
    s.sql("INSERT INTO db.t VALUES (3, 'v3')")
    return s


def _rows(session, version=None):
    """The ids of db.t at a tag (str) or snapshot id (int): VERSION AS OF, built with sqlglot."""
    table = exp.to_table("db.t")
    if version is not None:
        literal = (
            exp.Literal.string(version) if isinstance(version, str) else exp.Literal.number(version)
        )
        table.set("version", exp.Version(this="VERSION", kind="AS OF", expression=literal))
    return session.sql(exp.select("id").from_(table).order_by("id").sql("spark")).fetchall()


def _tag_file(table, name):
    return table.fileio.read_text(table.meta("tag", "tag-" + name))


def _snapshot_file(table, snapshot_id):
    return table.fileio.read_text(table.meta("snapshot", f"snapshot-{snapshot_id}"))


# --- create, and the bytes of the tag file --------------------------------------------------------


def test_create_tag_without_retention_is_the_snapshot_file_byte_for_byte(session):
    assert session.sql(
        "CALL sys.create_tag(table => 'db.t', tag => 'first', snapshot => 1)"
    ).fetchall() == [(True,)]
    session.sql("CALL sys.create_tag('db.t', 'latest')")  # positional, default: the latest snapshot
    table = session.table("db.t")
    assert _tag_file(table, "first") == _snapshot_file(table, 1)
    assert _tag_file(table, "latest") == _snapshot_file(table, 3)
    assert "tagCreateTime" not in _tag_file(
        table, "first"
    )  # Java omits both fields without a retention
    assert _rows(session, "first") == [(1,)]
    assert _rows(session, "latest") == [(1,), (2,), (3,)]


def test_create_tag_with_retention_writes_java_fields_and_formats(session):
    table = session.table("db.t")
    tags.create_tag(table, "kept", 2, "1 d", clock=lambda: FIXED)
    text = _tag_file(table, "kept")
    # The snapshot's JSON, then the two Tag fields exactly as Jackson writes them (checked against a
    # tag Paimon 0.9 wrote: tests/interop/test_tags_spark.py).
    expected = _snapshot_file(table, 2)[: -len("\n}")] + (
        ',\n  "tagCreateTime" : [ 2024, 6, 25, 10, 30, 5, 123456000 ],'
        '\n  "tagTimeRetained" : 86400.000000000\n}'
    )
    assert text == expected
    assert table.tag("kept").tag_time_retained_seconds == 86400.0


@pytest.mark.parametrize(
    ("text", "json_value"),
    [
        ("2 h", "7200.000000000"),
        ("30 min", "1800.000000000"),
        ("1500 ms", "1.500000000"),
        ("10 s", "10.000000000"),
    ],
)
def test_time_retained_duration_forms(session, text, json_value):
    session.sql(f"CALL sys.create_tag(table => 'db.t', tag => 'x', time_retained => '{text}')")
    assert f'"tagTimeRetained" : {json_value}\n' in _tag_file(session.table("db.t"), "x")


def test_tags_system_table_and_time_travel_after_more_writes(session):
    session.sql(
        "CALL sys.create_tag(table => 'db.t', tag => 'two', snapshot => 2,"
        " time_retained => '90 min')"
    )
    session.sql("INSERT INTO db.t VALUES (4, 'v4')")
    rows = session.sql(
        'SELECT tag_name, snapshot_id, record_count, time_retained FROM db."t$tags"'
    ).fetchall()
    assert rows == [("two", 2, 2, "PT1H30M")]
    ((created,),) = session.sql('SELECT create_time FROM db."t$tags"').fetchall()
    assert abs(created - datetime.datetime.now()) < datetime.timedelta(
        minutes=5
    )  # local wall-clock time
    assert _rows(session, "two") == [(1,), (2,)]
    assert _rows(session) == [(1,), (2,), (3,), (4,)]


# --- errors ---------------------------------------------------------------------------------------


def test_create_never_overwrites_an_existing_tag(session):
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'a', snapshot => 1)")
    before = _tag_file(session.table("db.t"), "a")
    with pytest.raises(
        AlreadyExistsError, match=r"tag 'a' .* already exists \(it holds snapshot 1\).*replace_tag"
    ):
        session.sql("CALL sys.create_tag(table => 'db.t', tag => 'a', snapshot => 2)")
    assert _tag_file(session.table("db.t"), "a") == before


def test_unknown_snapshot_lists_the_range(session):
    with pytest.raises(SnapshotNotFoundError, match=r"snapshot 9 .* snapshots 1\.\.3"):
        session.sql("CALL sys.create_tag(table => 'db.t', tag => 'a', snapshot => 9)")
    assert session.table("db.t").tag_names() == []


def test_bad_arguments_are_refused_with_the_reason(session):
    with pytest.raises(ValueError, match="must not be blank"):
        session.sql("CALL sys.create_tag(table => 'db.t', tag => '  ')")
    with pytest.raises(ValueError, match=r"'1 fortnight' is not a duration.*'1 d'"):
        session.sql(
            "CALL sys.create_tag(table => 'db.t', tag => 'a', time_retained => '1 fortnight')"
        )
    with pytest.raises(SqlError, match="needs tag"):
        session.sql("CALL sys.create_tag(table => 'db.t')")
    with pytest.raises(SqlError, match="has no parameter 'tags'"):
        session.sql("CALL sys.delete_tag(table => 'db.t', tags => 'a')")
    assert session.table("db.t").tag_names() == []


@pytest.mark.parametrize(
    "call",
    [
        "create_tag(table => 'db.t$branch_dev', tag => 'x')",
        "delete_tag('db.t$branch_dev', 'x')",
        "rollback(table => 'db.t$branch_dev', snapshot => 1)",
        "expire_snapshots(table => 'db.t$branch_dev', retain_max => 1)",
        "remove_orphan_files(table => 'db.t$branch_dev')",
        "compact(table => 'db.t$branch_dev')",
    ],
)
def test_procedures_on_a_branch_are_refused_by_name(session, call):
    """Java runs procedures on ``db.t$branch_b``; paimon-sql only on the main branch, and says so
    (it used to call the name invalid, as if '$' could not be typed)."""
    with pytest.raises(UnsupportedFeatureError, match=r"branch 'dev' of db\.t.*main branch"):
        session.sql("CALL sys." + call)
    with pytest.raises(SqlError, match=r"db\.t\$snapshots is a system table.*name the table"):
        session.sql("CALL sys." + call.replace("$branch_dev", "$snapshots"))
    assert session.table("db.t").tag_names() == []
    assert session.table("db.t").snapshot_ids() == [1, 2, 3]


def test_a_procedure_on_the_main_branch_by_name_is_the_table(session):
    session.sql("CALL sys.create_tag(table => 'db.t$branch_main', tag => 'm', snapshot => 2)")
    assert session.table("db.t").tag_names() == ["m"]


def test_tagging_an_empty_table_says_write_first(session):
    session.sql("CREATE TABLE db.empty (id INT)")
    with pytest.raises(SnapshotNotFoundError, match="no snapshot yet"):
        session.sql("CALL sys.create_tag(table => 'db.empty', tag => 'a')")


def test_unknown_tags_list_the_existing_ones_and_nothing_is_deleted(session):
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'a', snapshot => 1)")
    with pytest.raises(SnapshotNotFoundError, match=r"tag 'nope' .*its tags: a"):
        session.sql("CALL sys.delete_tag(table => 'db.t', tag => 'a,nope')")
    assert session.table("db.t").tag_names() == ["a"]
    with pytest.raises(SnapshotNotFoundError, match="tag 'nope'"):
        session.sql("CALL sys.rename_tag(table => 'db.t', tag => 'nope', target_tag => 'b')")
    with pytest.raises(SnapshotNotFoundError, match="tag 'nope'"):
        session.sql("CALL sys.replace_tag(table => 'db.t', tag => 'nope', snapshot => 1)")
    with pytest.raises(SnapshotNotFoundError, match=r"tag 'nope' .*tags: a"):
        session.sql("SELECT * FROM db.t VERSION AS OF 'nope'")


# --- delete, rename, replace ----------------------------------------------------------------------


def test_delete_comma_separated_tags_of_live_snapshots_keeps_the_data(session):
    for name, snap in (("a", 1), ("b", 2), ("c", 2)):
        session.sql(f"CALL sys.create_tag(table => 'db.t', tag => '{name}', snapshot => {snap})")
    table = session.table("db.t")
    files_before = sorted(p.name for p in (table_path(table)).rglob("*.parquet"))
    assert session.sql("CALL sys.delete_tag(table => 'db.t', tag => 'a,b')").fetchall() == [(True,)]
    assert table.tag_names() == ["c"]
    assert sorted(p.name for p in table_path(table).rglob("*.parquet")) == files_before
    assert _rows(session, "c") == [(1,), (2,)]
    assert _rows(session, 1) == [(1,)]


def table_path(table):
    return pathlib.Path(table.path)


def test_delete_a_tag_whose_snapshot_expired(session):
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'old', snapshot => 1)")
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'mid', snapshot => 2)")
    session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    table = session.table("db.t")
    assert table.snapshot_ids() == [3]
    assert _rows(session, "old") == [(1,)]
    session.sql("CALL sys.delete_tag(table => 'db.t', tag => 'old')")
    assert table.tag_names() == ["mid"]
    assert _rows(session, "mid") == [(1,), (2,)]
    assert _rows(session) == [(1,), (2,), (3,)]


def test_rename_keeps_the_exact_bytes_and_refuses_a_taken_name(session):
    table = session.table("db.t")
    tags.create_tag(table, "a", 1, "2 h", clock=lambda: FIXED)
    tags.create_tag(table, "b", 2)
    content = _tag_file(table, "a")
    with pytest.raises(AlreadyExistsError, match="tag 'b'"):
        session.sql("CALL sys.rename_tag(table => 'db.t', tag => 'a', target_tag => 'b')")
    assert session.sql(
        "CALL sys.rename_tag(table => 'db.t', tag => 'a', target_tag => 'c')"
    ).fetchall() == [(True,)]
    assert table.tag_names() == ["b", "c"]
    assert _tag_file(table, "c") == content
    assert _rows(session, "c") == [(1,)]


def test_replace_points_an_existing_tag_elsewhere(session):
    table = session.table("db.t")
    tags.create_tag(table, "moving", 1, "1 d", clock=lambda: FIXED)
    session.sql("CALL sys.replace_tag(table => 'db.t', tag => 'moving', snapshot => 3)")
    assert _tag_file(table, "moving") == _snapshot_file(
        table, 3
    )  # no retention given: a plain tag again
    assert _rows(session, "moving") == [(1,), (2,), (3,)]
    session.sql("CALL sys.replace_tag('db.t', 'moving', 2, '30 min')")
    assert table.tag("moving").id == 2
    assert table.tag("moving").tag_time_retained_seconds == 1800.0


# --- create_tag_from_timestamp --------------------------------------------------------------------


def test_create_tag_from_timestamp_picks_the_first_snapshot_at_or_after(session):
    table = session.table("db.t")
    times = [table.snapshot(i).time_millis for i in (1, 2, 3)]
    out = session.sql(
        "CALL sys.create_tag_from_timestamp(table => 'db.t', tag => 'ts2',"
        f" timestamp => {times[1]})"
    )
    assert out.columns == ["tagName", "snapshot", "commit_time", "watermark"]
    assert out.fetchall() == [("ts2", 2, times[1], "null")]
    session.sql(f"CALL sys.create_tag_from_timestamp('db.t', 'ts3', {times[1] + 1}, '1 h')")
    assert table.tag("ts3").id == 3
    assert table.tag("ts3").tag_time_retained_seconds == 3600.0
    session.sql("CALL sys.create_tag_from_timestamp(table => 'db.t', tag => 'ts1', timestamp => 0)")
    assert table.tag("ts1").id == 1
    late = times[2] + 1
    with pytest.raises(
        SnapshotNotFoundError, match="no snapshot or tag committed at or after"
    ) as e:
        session.sql(f"CALL sys.create_tag_from_timestamp('db.t', 'late', {late})")
    assert f" (epoch milliseconds {late})" in str(e.value)  # after the time, shown as a time


def test_create_tag_from_timestamp_finds_expired_history_in_tags(session):
    table = session.table("db.t")
    first = table.snapshot(1).time_millis
    session.sql("CALL sys.create_tag(table => 'db.t', tag => 'keep1', snapshot => 1)")
    session.sql("CALL sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    out = session.sql(
        f"CALL sys.create_tag_from_timestamp('db.t', 'again', {first - 1})"
    ).fetchall()
    assert out == [("again", 1, first, "null")]
    assert _rows(session, "again") == [(1,)]


# --- expiry ---------------------------------------------------------------------------------------


def test_expire_tags_by_retention_with_a_clock(session):
    table = session.table("db.t")
    tags.create_tag(table, "short", 1, "1 h", clock=lambda: FIXED)
    tags.create_tag(table, "long", 2, "1 d", clock=lambda: FIXED)
    tags.create_tag(table, "forever", 3)
    assert tags.expire_tags(table, clock=lambda: FIXED + datetime.timedelta(minutes=59)) == []
    assert tags.expire_tags(table, clock=lambda: FIXED + datetime.timedelta(hours=2)) == ["short"]
    assert table.tag_names() == ["forever", "long"]
    assert tags.expire_tags(table, clock=lambda: FIXED + datetime.timedelta(days=2)) == ["long"]
    assert table.tag_names() == ["forever"]


def test_expire_tags_procedure_with_older_than(session):
    table = session.table("db.t")
    tags.create_tag(table, "dated", 1, "3650 d", clock=lambda: FIXED)
    tags.create_tag(table, "plain", 2)  # no create time: its file's modification time counts
    out = session.sql("CALL sys.expire_tags(table => 'db.t')")
    assert out.columns == ["expired_tags"]
    assert out.fetchall() == [("No expired tags.",)]
    assert session.sql("CALL sys.expire_tags('db.t', '2024-06-25 10:31:00')").fetchall() == [
        ("dated",)
    ]
    assert table.tag_names() == ["plain"]
    assert session.sql("CALL sys.expire_tags('db.t', '2999-01-01 00:00:00')").fetchall() == [
        ("plain",)
    ]
    tags.create_tag(table, "typed", 3)
    typed = "CALL sys.expire_tags(table => 'db.t', older_than => TIMESTAMP '2999-01-01 00:00:00')"
    assert session.sql(typed).fetchall() == [("typed",)]  # Spark's typed literal works too
    with pytest.raises(ValueError, match="older_than 'yesterday' is not a timestamp"):
        session.sql("CALL sys.expire_tags('db.t', 'yesterday')")


def test_expire_tags_older_than_with_a_zone_offset(session):
    """An offset in older_than names an instant (as expire_snapshots reads it); it used to escape
    as Python's TypeError (an aware time compared with the tags' local wall-clock times)."""
    table = session.table("db.t")
    tags.create_tag(table, "dated", 1, "3650 d", clock=lambda: FIXED)
    tags.create_tag(table, "plain", 2)
    early = "CALL sys.expire_tags('db.t', '2000-01-01 00:00:00+02:00')"
    assert session.sql(early).fetchall() == [("No expired tags.",)]
    late = "CALL sys.expire_tags(table => 'db.t', older_than => '2999-01-01T00:00:00+02:00')"
    assert sorted(session.sql(late).fetchall()) == [("dated",), ("plain",)]
    assert table.tag_names() == []


def test_a_commit_expires_tags_past_their_retention(session):
    session.sql(
        "CALL sys.create_tag(table => 'db.t', tag => 'brief', snapshot => 1,"
        " time_retained => '1 ms')"
    )
    session.sql(
        "CALL sys.create_tag(table => 'db.t', tag => 'stays', snapshot => 1,"
        " time_retained => '1 d')"
    )
    session.sql("INSERT INTO db.t VALUES (4, 'v4')")  # TagAutoManager runs after every commit
    assert session.table("db.t").tag_names() == ["stays"]


# --- automatic creation ---------------------------------------------------------------------------


def _auto(session, times, **options):
    """Set the auto-tag options after the writes (real-time commits tag nothing), then run."""
    props = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
    session.sql(f"ALTER TABLE db.t SET ({props})")
    table = session.table("db.t")
    return tags.auto_create_tags(table, time_of=lambda s: times[s.id], clock=lambda: FIXED)


def test_daily_tags_for_completed_days_and_num_retained_max(session):
    session.sql("INSERT INTO db.t VALUES (4, 'v4')")
    times = {
        1: datetime.datetime(2024, 5, 14, 10, 0),  # first snapshot: the day before is tagged
        2: datetime.datetime(2024, 5, 14, 23, 0),  # same day: nothing
        3: datetime.datetime(2024, 5, 15, 0, 30),  # the 14th is complete
        4: datetime.datetime(2024, 5, 17, 8, 0),  # the 15th is skipped (no automatic-completion)
    }
    created = _auto(
        session,
        times,
        **{"tag.automatic-creation": "process-time", "tag.num-retained-max": "2"},
    )
    table = session.table("db.t")
    assert created == ["2024-05-13", "2024-05-14", "2024-05-16"]
    assert table.tag_names() == [
        "2024-05-14",
        "2024-05-16",
    ]  # the oldest went past num-retained-max
    assert [table.tag(n).id for n in table.tag_names()] == [3, 4]
    assert _rows(session, "2024-05-14") == [(1,), (2,), (3,)]
    # a later run resumes after the newest automatic tag: nothing new
    assert tags.auto_create_tags(table, time_of=lambda s: times[s.id]) == []


def test_automatic_completion_fills_skipped_days(session):
    times = {
        1: datetime.datetime(2024, 5, 14, 10, 0),
        2: datetime.datetime(2024, 5, 15, 1, 0),
        3: datetime.datetime(2024, 5, 18, 1, 0),
    }
    created = _auto(
        session,
        times,
        **{"tag.automatic-creation": "process-time", "tag.automatic-completion": "true"},
    )
    assert created == ["2024-05-13", "2024-05-14", "2024-05-15"]


def test_hourly_tags_with_delay_and_default_retention(session):
    times = {
        1: datetime.datetime(2024, 5, 14, 10, 5),
        2: datetime.datetime(
            2024, 5, 14, 11, 5
        ),  # 10:55 after the delay: the 10 o'clock hour is open
        3: datetime.datetime(2024, 5, 14, 11, 15),
    }
    created = _auto(
        session,
        times,
        **{
            "tag.automatic-creation": "process-time",
            "tag.creation-period": "hourly",
            "tag.creation-delay": "10 min",
            "tag.default-time-retained": "1 d",
        },
    )
    table = session.table("db.t")
    assert created == ["2024-05-14 09", "2024-05-14 10"]
    assert table.tag("2024-05-14 10").id == 3
    assert '"tagTimeRetained" : 86400.000000000' in _tag_file(table, "2024-05-14 10")
    assert table.tag("2024-05-14 10").tag_create_time == FIXED


def test_watermark_mode_skips_snapshots_without_a_watermark(session):
    table = session.table("db.t")
    session.sql("ALTER TABLE db.t SET ('tag.automatic-creation' = 'watermark')")
    assert table.snapshot(3).watermark is None
    assert tags.auto_create_tags(table) == []
    assert table.tag_names() == []


def test_period_names_and_boundaries():
    at = datetime.datetime(2024, 5, 14, 11, 30)
    plain_day = tags.tag_period({"tag.period-formatter": "without_dashes"})
    assert plain_day.name(plain_day.previous(at)) == "20240513"
    assert plain_day.time("20240513") == datetime.datetime(2024, 5, 13)
    two = tags.tag_period({"tag.creation-period": "two-hours"})
    assert two.name(two.previous(at)) == "2024-05-14 08"
    plain_hour = tags.tag_period(
        {"tag.creation-period": "hourly", "tag.period-formatter": "without_dashes"}
    )
    assert plain_hour.name(plain_hour.previous(at)) == "20240514 10"
    daily = tags.tag_period({})
    assert daily.time("2024-05-14 10") == datetime.datetime(
        2024, 5, 14
    )  # Java's daily parser drops the hour
    assert daily.time("2024-13-01") is None
    assert daily.time("nightly") is None
    with pytest.raises(OptionError, match=r"tag\.creation-period 'weekly'"):
        tags.tag_period({"tag.creation-period": "weekly"})


def test_delay_of_a_whole_period_is_refused(session):
    with pytest.raises(OptionError, match=r"must be shorter than one tag\.creation-period"):
        _auto(
            session,
            {},
            **{
                "tag.automatic-creation": "process-time",
                "tag.creation-period": "hourly",
                "tag.creation-delay": "1 h",
            },
        )


def test_commits_create_automatic_tags(tmp_path):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id INT) WITH ('tag.automatic-creation' = 'process-time')")
    session.sql("INSERT INTO db.t VALUES (1)")
    table = session.table("db.t")
    day = datetime.datetime.fromtimestamp(table.snapshot(1).time_millis / 1000).date()
    yesterday = (day - datetime.timedelta(days=1)).isoformat()
    assert table.tag_names() == [yesterday]
    assert table.tag(yesterday).id == 1
    session.sql("INSERT INTO db.t VALUES (2)")  # same day: no new tag
    assert table.tag_names() == [yesterday]


def test_batch_mode_tags_each_write(tmp_path):
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id INT) WITH ('tag.automatic-creation' = 'batch')")
    session.sql("INSERT INTO db.t VALUES (1)")
    session.sql("INSERT INTO db.t VALUES (2)")
    table = session.table("db.t")
    day = datetime.datetime.fromtimestamp(table.snapshot(2).time_millis / 1000).strftime("%Y-%m-%d")
    assert table.tag_names() == ["batch-write-" + day]
    assert table.tag("batch-write-" + day).id == 2  # replaced by the later write


def test_tag_json_round_trips_through_the_codec(session):
    table = session.table("db.t")
    tags.create_tag(table, "r", 1, "5 s", clock=lambda: FIXED)
    text = _tag_file(table, "r")
    assert snapshot_to_json(table.tag("r")) == text
    assert json.loads(text)["tagCreateTime"] == [2024, 6, 25, 10, 30, 5, 123456000]
