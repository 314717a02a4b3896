"""CoreOptions' typed accessors: every default comes from the option registry, and equals the value
the read sites hard-coded before the registry became the one home of defaults (issue 12)."""

from __future__ import annotations

import pytest

from paimon_sql.errors import OptionError
from paimon_sql.format.option_registry import OPTIONS, option_default
from paimon_sql.format.options import CoreOptions
from paimon_sql.types import ADD_KINDS, RETRACT_KINDS, RowKind

UNSET = CoreOptions({})


@pytest.mark.parametrize(
    ("accessor", "key", "expected"),
    [
        ("integer", "bucket", -1),
        ("integer", "commit.max-retries", 10),
        ("integer", "manifest.merge-min-count", 30),
        ("memory", "manifest.target-file-size", 8 << 20),
        ("integer", "num-sorted-run.compaction-trigger", 5),
        ("integer", "compaction.size-ratio", 1),
        ("integer", "compaction.max-size-amplification-percent", 200),
        ("memory", "write-buffer-size", 256 << 20),
        ("integer", "snapshot.num-retained.min", 10),
        ("integer", "snapshot.num-retained.max", 2**31 - 1),
        ("duration_ms", "snapshot.time-retained", 3_600_000),
        ("integer", "dynamic-bucket.target-row-num", 2_000_000),
        ("integer", "dynamic-bucket.max-buckets", -1),
        ("integer", "file.compression.zstd-level", 1),
        ("text", "file.compression", "zstd"),
        ("text", "metadata.stats-mode", "truncate(16)"),
        ("text", "tag.creation-delay", "0 ms"),
        ("text", "fields.v.list-agg-delimiter", ","),
        ("text", "data-file.path-directory", None),
        ("choice", "tag.automatic-creation", "none"),
        ("choice", "tag.creation-period", "daily"),
        ("choice", "tag.period-formatter", "with_dashes"),
        ("choice", "sequence.field.sort-order", "ascending"),
        ("flag", "metadata.stats-dense-store", True),
        ("flag", "data-file.thin-mode", False),
        ("flag", "write-only", False),
        ("flag", "fields.v.ignore-retract", False),
        ("optional_integer", "num-levels", None),
        ("optional_integer", "changelog.num-retained.max", None),
        ("optional_memory", "target-file-size", None),
        ("optional_duration_ms", "changelog.time-retained", None),
    ],
)
def test_defaults_come_from_the_registry(accessor, key, expected):
    assert getattr(UNSET, accessor)(key) == expected


def test_named_accessors_keep_the_former_defaults():
    assert UNSET.partition_default_name == "__DEFAULT_PARTITION__"
    assert UNSET.file_format == "parquet"
    assert UNSET.top_level == 5
    assert UNSET.target_file_size(True) == 128 << 20
    assert UNSET.target_file_size(False) == 256 << 20
    assert UNSET.dynamic_bucket_initial_buckets == 1
    assert UNSET.snapshot_expire_limit == 10  # Paimon 0.9's committer; the registry says 50
    assert OPTIONS["snapshot.expire.limit"].default == "50"
    assert UNSET.watermark_time_zone == "UTC"


def test_set_values_win_and_blank_numbers_count_as_unset():
    o = CoreOptions(
        {
            "num-levels": "3",
            "bucket": " ",
            "target-file-size": "1 mb",
            "snapshot.expire.limit": "3",
            "write-only": " TRUE ",
            "fields.v.list-agg-delimiter": " ",
        }
    )
    assert o.top_level == 2
    assert o.bucket == -1
    assert o.target_file_size(True) == 1 << 20
    assert o.snapshot_expire_limit == 3
    assert o.flag("write-only")
    assert o.text("fields.v.list-agg-delimiter") == " "  # a blank text value is a value


def test_required_accessors_refuse_an_option_without_default():
    with pytest.raises(OptionError, match="num-levels"):
        UNSET.integer("num-levels")
    assert option_default("no-such-option") is None


def test_row_kind():
    assert [int(k) for k in RowKind] == [0, 1, 2, 3]
    assert [k.short for k in RowKind] == ["+I", "-U", "+U", "-D"]
    assert all(RowKind.from_short(k.short) is k for k in RowKind)
    assert ADD_KINDS == (RowKind.INSERT, RowKind.UPDATE_AFTER)
    assert RETRACT_KINDS == (RowKind.UPDATE_BEFORE, RowKind.DELETE)
    with pytest.raises(ValueError, match="row kind"):
        RowKind.from_short("+X")
