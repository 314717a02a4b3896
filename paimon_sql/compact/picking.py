"""Which sorted runs of a bucket a lookup compaction merges.

Java's ``UniversalCompaction`` under ``ForceUpLevel0Compaction`` (seed 001; paimon-format.md §7).

A bucket's sorted runs are its level-0 files (newest first), then each level >= 1 (`sorted_runs`).
With ``num-sorted-run.compaction-trigger`` (5) runs or more, size amplification
(``compaction.max-size-amplification-percent``) or the size ratio (``compaction.size-ratio``) may
pick; otherwise all level-0 runs, plus each following run while the picked size (times
``1 + ratio/100``) reaches it (`pick`). The output level is the next run's level minus one (never
0); picking every run is a full compaction (`paimon_sql.compact.full`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.format.options import CoreOptions

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from paimon_sql.format.manifest import DataFileMeta


@dataclass(frozen=True, slots=True)
class SortedRun:
    """One sorted run of a bucket: a level-0 file, or all files of a level >= 1."""

    level: int
    files: tuple[DataFileMeta, ...]

    @property
    def size(self) -> int:
        """The run's bytes on disk."""
        return sum(f.file_size for f in self.files)


def sorted_runs(files: Sequence[DataFileMeta]) -> list[SortedRun]:
    """Java's ``Levels.levelSortedRuns``: level-0 files newest first, then levels ascending."""
    level0 = sorted(
        (f for f in files if f.level == 0),
        key=lambda f: (f.max_sequence_number, f.file_name),
        reverse=True,
    )
    runs = [SortedRun(0, (f,)) for f in level0]
    for level in sorted({f.level for f in files if f.level > 0}):
        runs.append(SortedRun(level, tuple(f for f in files if f.level == level)))
    return runs


def pick(runs: Sequence[SortedRun], options: Mapping[str, str]) -> tuple[int, int] | None:
    """Java's ``ForceUpLevel0Compaction`` over ``UniversalCompaction``.

    Returns (number of leading runs to merge, output level), or None when every run is merged (a
    full compaction to the top level).

    >>> runs = [SortedRun(0, ()), SortedRun(5, ())]
    >>> pick(runs, {}) is None
    True
    """
    typed = CoreOptions(options)
    max_level = typed.top_level
    trigger = typed.integer("num-sorted-run.compaction-trigger")
    ratio = typed.integer("compaction.size-ratio")
    amp = typed.integer("compaction.max-size-amplification-percent")
    sizes = [r.size for r in runs]

    def by_ratio(count: int, force: bool) -> int | None:
        candidate = sum(sizes[:count])
        for size in sizes[count:]:
            if candidate * (100.0 + ratio) / 100.0 < size:
                break
            candidate += size
            count += 1
        return count if force or count > 1 else None

    count: int | None = None
    if len(runs) >= trigger:
        if sum(sizes[:-1]) * 100 > amp * sizes[-1]:  # size amplification
            return None
        count = by_ratio(1, False)
        if count is None and len(runs) > trigger:
            count = by_ratio(len(runs) - trigger + 1, False)
    if count is None:
        count = by_ratio(sum(1 for r in runs if r.level == 0), True)
    return _unit(runs, count or 0, max_level)


def _unit(runs: Sequence[SortedRun], count: int, max_level: int) -> tuple[int, int] | None:
    """Java's ``UniversalCompaction.createUnit``.

    The output level is the next run's minus one, never 0; merging every run is a full compaction.
    """
    level = max(0, runs[count].level - 1) if count < len(runs) else max_level
    if level == 0:
        for run in runs[count:]:
            count += 1
            if run.level != 0:
                level = run.level
                break
    if count == len(runs):
        return None
    return count, level
