"""The cross-partition bucket slots against Java's BucketAssigner, run record by record.

`_java_assign` follows ``org.apache.paimon.crosspartition.BucketAssigner.assignBucket`` step by
step (a sorted map of bucket -> key count, filtered by the assigner's id); `global_index.slots`
computes the same placement for a whole batch of new keys at once.
"""

from __future__ import annotations

import random

import pytest

from paimon_sql.write.global_index import slots


def _java_assign(counts: dict[int, int], assign_id: int, n: int, target: int) -> int:
    for bucket in sorted(counts):
        if bucket % n == assign_id and counts[bucket] < target:
            counts[bucket] += 1
            return bucket
    i = 0
    while True:
        if i % n == assign_id and i not in counts:
            counts[i] = 1
            return i
        i += 1


def _from_slots(counts: dict[int, int], assign_id: int, n: int, fresh: int, target: int):
    placed = []
    for bucket, start, stop in slots(counts, assign_id, n, fresh, target):
        placed += [bucket] * (min(stop, fresh) - start)
    return placed[:fresh]


@pytest.mark.parametrize("seed", range(40))
def test_slots_place_new_keys_as_javas_bucket_assigner(seed):
    rng = random.Random(seed)
    n = rng.choice([1, 1, 2, 3])
    target = rng.randint(1, 5)
    assign_id = rng.randrange(n)
    # a map as bootstrap and earlier moves leave it: some full, some not, some emptied, gaps
    counts = {b: rng.randint(0, target) for b in rng.sample(range(12), rng.randint(0, 8))}
    fresh = rng.randint(0, 25)
    java_counts = dict(counts)
    expected = [_java_assign(java_counts, assign_id, n, target) for _ in range(fresh)]
    assert _from_slots(counts, assign_id, n, fresh, target) == expected
