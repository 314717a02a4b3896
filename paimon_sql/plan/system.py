"""Plan rewrites behind Paimon's data system tables (``t$ro``).

Java's ``ReadOptimizedTable`` reads only files that need no merge. For a primary-key table that is
the top level (``num-levels`` - 1, the output of full compaction); an append table is read as it is.
One Java quirk is kept on
purpose: for primary-key tables whose batch scan already skips level 0 (deletion vectors, or the
    ``first-row``
engine), Java's ``level > 0`` filter replaces the read-optimized one, so ``$ro`` equals the normal
read (checked with Paimon 0.9 through Spark on the ``pk_dv`` fixture).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from paimon_sql.format.options import MergeEngine
from paimon_sql.plan.scan import ReadMode, Section

if TYPE_CHECKING:
    from paimon_sql.plan.scan import ScanPlan


def read_optimized_filter(plan: ScanPlan) -> ScanPlan:
    """The plan of ``t$ro``: for merge-read primary-key tables keep only top-level files.

    One section each.

    Top-level files have disjoint key ranges, so no section merges two files; a file that still
    carries retractions (``_DELETE_ROW_COUNT`` > 0) is read with a merge of itself, which drops
    them. Splits left empty are dropped. Append and deletion-vector plans come back unchanged
    (module docstring).
    """
    if plan.mode is not ReadMode.MERGE or plan.options.merge_engine is MergeEngine.FIRST_ROW:
        return plan
    top = plan.options.top_level
    splits = []
    for split in plan.splits:
        files = [f for f in split.files if f.level == top]
        if not files:
            continue
        sections = tuple(Section(files=(f,), merge=bool(f.delete_row_count)) for f in files)
        splits.append(dataclasses.replace(split, sections=sections))
    return dataclasses.replace(plan, splits=tuple(splits))
