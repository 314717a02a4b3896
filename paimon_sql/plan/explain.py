"""What a scan plan decided, as (property, value) pairs: the EXPLAIN of a Paimon scan.

>>> explain_rows.__doc__.split(".")[0]
'The EXPLAIN lines of one plan'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.plan.scan import ReadMode

if TYPE_CHECKING:
    from paimon_sql.plan.scan import ScanPlan


def explain_rows(plan: ScanPlan) -> list[tuple[str, str]]:
    """The EXPLAIN lines of one plan. Each is (property, value)."""
    s = plan.stats
    snap = plan.snapshot
    files = [f for split in plan.splits for f in split.files]
    merged = sum(1 for split in plan.splits for sec in split.sections if sec.merge)
    refs = [ref for split in plan.splits for _, ref in split.deletion_vectors]
    dv_rows = sum(ref.meta.cardinality or 0 for ref in refs)
    dv_text = f"{len(refs)} files, {dv_rows} rows removed"
    if any(ref.meta.cardinality is None for ref in refs):
        dv_text = f"{len(refs)} files (row counts not recorded before Paimon 1.0)"
    # files a file index (bloom-filter, bitmap, bsi) ruled out; said only when there are some
    index_text = f", {s.files_pruned_index} by file index" if s.files_pruned_index else ""
    engine = plan.options.merge_engine.value if plan.schema.primary_keys else "-"
    if plan.mode is ReadMode.MERGE:
        how = (
            f"merge-on-read ({engine}): {merged} overlapping sections merged, the rest read as "
            "they are"
        )
    elif plan.mode is ReadMode.DELETION_VECTORS:
        how = "deletion vectors applied, no merge (level-0 files hidden until compaction)"
    else:
        how = "append: files concatenated" + (", deletion vectors applied" if dv_rows else "")
    return [
        (
            "snapshot",
            "none (empty table)" if snap is None else f"{snap.id} ({snap.commit_kind.value})",
        ),
        ("schema", str(plan.schema.id)),
        ("read", how),
        (
            "manifests",
            f"{s.manifests_total - s.manifests_pruned} kept, {s.manifests_pruned} pruned by "
            "partition stats",
        ),
        ("partitions", f"{len(s.partitions)} read"),
        ("buckets", f"{len(s.buckets)} read"),
        (
            "files",
            f"{len(files)} read of {s.files_total} live; pruned: {s.files_pruned_partition} by "
            "partition, "
            f"{s.files_pruned_bucket} by bucket, {s.files_pruned_stats} by statistics"
            f"{index_text}; hidden: "
            f"{s.files_hidden_level0} level-0, {s.files_hidden_postpone} postponed",
        ),
        ("rows in files", str(sum(f.row_count for f in files))),
        ("deletion vectors", dv_text),
        ("splits", str(len(plan.splits))),
    ]
