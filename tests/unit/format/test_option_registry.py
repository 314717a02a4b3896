"""The option registry: values, suggestions and every forbidden combination."""

from __future__ import annotations

import pytest

from paimon_sql.errors import OptionError, UnsupportedFeatureError
from paimon_sql.format.option_registry import (
    OPTIONS,
    normalise_options,
    parse_duration,
    parse_memory,
    validate_options,
)
from paimon_sql.types import DataField, parse_type


def _fields(**types: str) -> tuple[DataField, ...]:
    return tuple(
        DataField(id=i, name=n, type=parse_type(t)) for i, (n, t) in enumerate(types.items())
    )


PK = _fields(id="BIGINT NOT NULL", dt="STRING", v="DOUBLE", s="STRING", n="INT", ts="BIGINT")


def check(options, *, pk=("id",), parts=(), fields=PK):
    return validate_options(options, fields=fields, primary_keys=pk, partition_keys=parts)


def refused(options, *fragments, **kw):
    with pytest.raises(OptionError) as info:
        check(options, **kw)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    return str(info.value)


def test_registry_covers_the_seed_and_format_options():
    wanted = """bucket bucket-key merge-engine changelog-producer sequence.field
    sequence.field.sort-order deletion-vectors.enabled deletion-vectors.bitmap64
    deletion-vectors.merge-on-read file.format file.compression file.compression.zstd-level
    manifest.format manifest.compression manifest.target-file-size manifest.merge-min-count
    target-file-size write-buffer-size page-size num-sorted-run.compaction-trigger
    num-sorted-run.stop-trigger num-levels compaction.max-size-amplification-percent
    compaction.size-ratio snapshot.num-retained.min snapshot.num-retained.max snapshot.time-retained
    snapshot.expire.limit changelog.num-retained.min changelog.num-retained.max
    changelog.time-retained tag.automatic-creation tag.creation-period tag.creation-delay
    tag.num-retained-max tag.default-time-retained ignore-delete first-row.ignore-delete
    partial-update.ignore-delete aggregation.remove-record-on-delete
    fields.default-aggregate-function metadata.stats-mode metadata.stats-dense-store
    dynamic-bucket.target-row-num dynamic-bucket.initial-buckets dynamic-bucket.max-buckets
    partition.default-name partition.legacy-name data-file.prefix changelog-file.prefix
    data-file.path-directory data-file.external-paths rowkind.field write-only commit.max-retries
    scan.snapshot-id scan.tag-name scan.timestamp-millis consumer-id row-tracking.enabled
    full-compaction.delta-commits changelog-producer.row-deduplicate primary-key.nullable
    deletion-vector.index-file.target-size data-file.thin-mode file-index.in-manifest-threshold"""
    assert sorted(set(wanted.split()) - set(OPTIONS)) == []


@pytest.mark.parametrize(
    ("key", "default"),
    [("bucket", "-1"), ("file.format", "parquet"), ("file.compression", "zstd"),
     ("manifest.target-file-size", "8 mb"), ("num-sorted-run.compaction-trigger", "5"),
     ("snapshot.num-retained.min", "10"), ("snapshot.time-retained", "1 h"),
     ("snapshot.expire.limit", "50"), ("metadata.stats-mode", "truncate(16)"),
     ("partition.default-name", "__DEFAULT_PARTITION__"), ("commit.max-retries", "10"),
     ("write-buffer-size", "256 mb"), ("page-size", "64 kb"),
     ("dynamic-bucket.target-row-num", "2000000")],
)  # fmt: skip
def test_defaults_follow_paimon_format_section_11(key, default):
    assert OPTIONS[key].default == default


def test_values_are_normalised():
    out = check({"bucket": " 4 ", "write-only": "TRUE", "merge-engine": "Partial-Update",
                 "sequence.field": " ts , n ", "metadata.stats-mode": "TRUNCATE(8)",
                 "snapshot.time-retained": "2 h", "parquet.block.size": "x"})  # fmt: skip
    assert out == {"bucket": "4", "write-only": "true", "merge-engine": "partial-update",
                   "sequence.field": "ts,n", "metadata.stats-mode": "truncate(8)",
                   "snapshot.time-retained": "2 h", "parquet.block.size": "x"}  # fmt: skip


def test_memory_and_duration():
    assert parse_memory("1 gb") == 1 << 30
    assert parse_memory("512") == 512
    assert parse_duration("1 d") == 86_400_000
    assert parse_duration("90 s") == 90_000
    with pytest.raises(ValueError, match="memory"):
        parse_memory("lots")


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [("buckets", "'bucket'"), ("merge_engine", "'merge-engine'"),
     ("Merge-Engine", "'merge-engine'"), ("changelog-produce", "'changelog-producer'"),
     ("deletion-vector.enabled", "'deletion-vectors.enabled'"),
     ("snapshot.num-retain.min", "'snapshot.num-retained.min'"), ("file.fromat", "'file.format'")],
)  # fmt: skip
def test_unknown_keys_suggest_the_nearest(key, suggestion):
    message = refused({key: "1"}, f"unknown table option {key!r}", "did you mean")
    assert suggestion in message


def test_unknown_per_column_suffix_suggests_suffixes():
    refused({"fields.v.aggregate-functoin": "sum"}, "did you mean 'aggregate-function'")


def test_unknown_column_in_options_suggests_columns():
    refused({"sequence.field": "tss"}, "'sequence.field' names column 'tss'", "did you mean 'ts'")


@pytest.mark.parametrize(
    ("options", "fragments"),
    [({"bucket": "0"}, ["'0'", "'bucket'", "N > 0", "-1", "-2"]),
     ({"bucket": "-3"}, ["'-3'", "[-2, inf]"]),
     ({"bucket": "four"}, ["'four'", "integer"]),
     ({"merge-engine": "dedup"},
      ["'dedup'", "deduplicate, partial-update, aggregation, first-row"]),
     ({"write-only": "yes"}, ["'yes'", "true or false"]),
     ({"write-buffer-size": "big"}, ["'big'", "memory size"]),
     ({"snapshot.time-retained": "1 fortnight"}, ["duration"]),
     ({"file.compression.zstd-level": "23"}, ["[1, 22]"]),
     ({"metadata.stats-mode": "truncate"}, ["truncate(N)"])],
)  # fmt: skip
def test_bad_values_name_key_value_and_valid_values(options, fragments):
    refused(options, "invalid value", *fragments)


def test_bucket_zero_is_refused_but_bucket_minus_two_allowed_for_pk():
    refused({"bucket": "0"}, "invalid value '0'")
    assert check({"bucket": "-2"}) == {"bucket": "-2"}
    refused({"bucket": "-2"}, "postpone", pk=())


# ----------------------------------------------------------------- forbidden combinations


def test_first_row_with_sequence_field():
    refused({"merge-engine": "first-row", "sequence.field": "ts"}, "first-row", "sequence.field")


def test_first_row_changelog_producers():
    check({"merge-engine": "first-row", "changelog-producer": "lookup"})
    check({"merge-engine": "first-row"})
    refused({"merge-engine": "first-row", "changelog-producer": "input"}, "'none' or 'lookup'")


def test_fixed_bucket_cross_partition_update_needs_dynamic_bucket():
    refused({"bucket": "4"}, "cross-partition", "'bucket' = '-1'", pk=("id",), parts=("dt",))
    check({"bucket": "-1"}, pk=("id",), parts=("dt",))
    check({"bucket": "4"}, pk=("id", "dt"), parts=("dt",))


def test_sequence_field_in_cross_partition_update():
    refused({"sequence.field": "ts"}, "cross-partition", pk=("id",), parts=("dt",))


@pytest.mark.parametrize("producer", ["input", "full-compaction"])
def test_deletion_vectors_with_unsupported_changelog_producer(producer):
    refused(
        {"deletion-vectors.enabled": "true", "changelog-producer": producer}, "'none' or 'lookup'"
    )


def test_deletion_vectors_allowed_and_refused():
    check({"deletion-vectors.enabled": "true", "changelog-producer": "lookup", "bucket": "2"})
    # Java's SchemaValidation takes them on append tables too, in every bucket mode
    check({"deletion-vectors.enabled": "true"}, pk=())
    check({"deletion-vectors.enabled": "true", "bucket": "2", "bucket-key": "id"}, pk=())
    refused({"deletion-vectors.enabled": "true", "merge-engine": "first-row"}, "first-row")


def test_bucket_key_rules():
    refused({"bucket": "4", "bucket-key": "v"}, "subset of the primary key", pk=("id",))
    refused({"bucket": "4", "bucket-key": "dt"}, "partition keys", pk=("id", "dt"), parts=("dt",))
    refused({"bucket-key": "id"}, "fixed bucket count", pk=("id",))
    check({"bucket": "4", "bucket-key": "id"}, pk=("id", "dt"), parts=("dt",))


def test_append_table_with_fixed_buckets_needs_bucket_key():
    refused({"bucket": "4"}, "needs 'bucket-key'", pk=())
    check({"bucket": "4", "bucket-key": "v"}, pk=())
    check({}, pk=())


def test_pk_only_options_on_append_tables():
    refused({"merge-engine": "aggregation"}, "'merge-engine' needs a primary key", pk=())
    refused({"changelog-producer": "input"}, "'changelog-producer' needs a primary key", pk=())
    refused({"sequence.field": "ts"}, "'sequence.field' needs a primary key", pk=())


def test_sequence_field_checks():
    refused({"sequence.field": "ts,ts"}, "more than once")
    refused({"sequence.field": "missing"}, "does not have")
    refused({"merge-engine": "aggregation", "sequence.field": "ts",
             "fields.ts.aggregate-function": "sum"}, "may not have an aggregate")  # fmt: skip
    nested = _fields(id="INT NOT NULL", a={"type": "ARRAY", "element": "INT"})  # type: ignore[arg-type]
    refused({"sequence.field": "a"}, "nested type", fields=nested)


def test_aggregate_functions():
    check({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
           "fields.s.aggregate-function": "listagg"})  # fmt: skip
    refused({"merge-engine": "aggregation", "fields.v.aggregate-function": "avg"},
            "invalid value 'avg'", "sum, product, count")  # fmt: skip
    refused({"merge-engine": "aggregation", "fields.s.aggregate-function": "sum"},
            "'sum' does not accept column 's' of type VARCHAR")  # fmt: skip
    refused({"merge-engine": "aggregation", "fields.v.aggregate-function": "bool_and"}, "BOOLEAN")
    refused({"fields.v.aggregate-function": "sum"}, "need merge-engine 'aggregation'")
    refused(
        {"merge-engine": "aggregation", "fields.id.aggregate-function": "sum"}, "never aggregated"
    )
    refused({"merge-engine": "aggregation", "fields.default-aggregate-function": "sum"},
            "'sum' does not accept column 'dt'")  # fmt: skip


def test_default_aggregate_function_leaves_the_sequence_field_alone():
    """Java never aggregates a sequence field (getAggFuncName: last_value), so the default
    function need not accept its type."""
    fields = _fields(id="BIGINT NOT NULL", v="DOUBLE", n="INT", ts="TIMESTAMP(3)")
    agg = {"merge-engine": "aggregation", "fields.default-aggregate-function": "sum"}
    refused(agg, "'sum' does not accept column 'ts'", fields=fields)
    check({**agg, "sequence.field": "ts"}, fields=fields)


def test_sequence_groups():
    ok = {"merge-engine": "partial-update", "fields.ts.sequence-group": "v,s",
          "fields.v.aggregate-function": "max"}  # fmt: skip
    check(ok)
    refused({"merge-engine": "partial-update", "fields.v.aggregate-function": "max"},
            "needs a sequence group")  # fmt: skip
    refused({"merge-engine": "partial-update", "fields.ts.sequence-group": "v",
             "fields.n.sequence-group": "v"}, "two sequence groups")  # fmt: skip
    refused({"fields.ts.sequence-group": "v"}, "needs merge-engine 'partial-update'")
    refused({"merge-engine": "partial-update", "fields.ts.sequence-group": "nope"}, "'nope'")


def test_merge_function_conflicts_are_refused_as_java_does():
    """Java's merge-function factories refuse these pairs on every write and read."""
    agg = {"merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true"}
    check({**agg, "fields.v.aggregate-function": "max"})
    refused({**agg, "fields.v.ignore-retract": "true"},
            "'aggregation.remove-record-on-delete' and 'fields.v.ignore-retract' have "
            "conflicting behavior")  # fmt: skip
    pu = {"merge-engine": "partial-update"}
    rrod = {**pu, "partial-update.remove-record-on-delete": "true"}
    refused({**rrod, "ignore-delete": "true"}, "'ignore-delete' and 'partial-update.remove")
    refused({**rrod, "fields.ts.sequence-group": "v"}, "'fields.ts.sequence-group' and")
    group = {**pu, "fields.ts.sequence-group": "v"}
    check({**group, "partial-update.remove-record-on-sequence-group": "ts"})
    refused({**group, "partial-update.remove-record-on-sequence-group": "ts",
             "partial-update.ignore-delete": "true"}, "conflicting")  # fmt: skip
    refused({**group, "partial-update.remove-record-on-sequence-group": "v"},
            "names 'v', which no")  # fmt: skip


def test_other_combinations():
    refused({"snapshot.num-retained.min": "20", "snapshot.num-retained.max": "5"}, "larger than")
    refused({"changelog-producer.row-deduplicate": "true"}, "'lookup' or 'full-compaction'")
    refused({"partition.expiration-time": "7 d"}, "partitioned table")
    refused({"scan.snapshot-id": "3", "scan.tag-name": "t"}, "at most one")
    refused({"rowkind.field": "op"}, "'op'")
    refused({"aggregation.remove-record-on-delete": "true"}, "only applies to merge-engine")


def test_key_options_move_out_and_may_not_contradict():
    assert check({"primary-key": "id", "bucket": "1"}, pk=()) == {"bucket": "1"}
    refused({"primary-key": "dt"}, "given twice", pk=("id",))


def test_engine_options_decision():
    assert normalise_options({"connector": "paimon", "sink.parallelism": "4"}) == {
        "sink.parallelism": "4"
    }
    with pytest.raises(OptionError, match="'path' is not supported"):
        normalise_options({"path": "/tmp/x"})
    with pytest.raises(UnsupportedFeatureError):
        normalise_options({"type": "format-table"})
    with pytest.raises(OptionError, match="must be 'paimon'"):
        normalise_options({"connector": "kafka"})


def test_every_problem_is_reported_at_once():
    message = refused(
        {"merge-engine": "first-row", "sequence.field": "ts", "changelog-producer": "input"}
    )
    assert message.count("\n") >= 1


def test_columns_unknown_skips_column_checks():
    opts = {"sequence.field": "whatever", "bucket": "2"}
    assert validate_options(opts, fields=None, primary_keys=("id",), partition_keys=()) == opts


def test_row_tracking_and_data_evolution_as_java_13_validates():
    """SchemaValidation.validateRowTracking: append tables with bucket -1 only; data evolution
    needs row tracking (and no deletion vectors)."""
    tracked = {"row-tracking.enabled": "true"}
    check(tracked, pk=())
    check({**tracked, "data-evolution.enabled": "true"}, pk=())
    refused(tracked, "remove the primary key")
    refused({**tracked, "bucket": "2", "bucket-key": "id"}, "'bucket' = '-1'", pk=())
    refused({"data-evolution.enabled": "true"}, "needs 'row-tracking.enabled'", pk=())


def test_nested_update_count_limit_is_a_column_option():
    """Java 1.x's ``fields.<col>.count-limit`` (nested_update): accepted, and a bad value refused
    (Flink 1.3 reads our table written with it, tests/interop/flink)."""
    fields = (
        DataField(id=0, name="id", type=parse_type("INT NOT NULL")),
        DataField(id=1, name="items", type=parse_type({"type": "ARRAY", "element": "INT"})),
    )
    options = {
        "merge-engine": "aggregation",
        "fields.items.aggregate-function": "nested_update",
        "fields.items.count-limit": "2",
    }
    assert check(options, fields=fields)["fields.items.count-limit"] == "2"
    bad = {**options, "fields.items.count-limit": "many"}
    refused(bad, "invalid value", "'many'", fields=fields)
