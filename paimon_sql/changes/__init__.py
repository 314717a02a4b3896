"""Change data: incremental reads between snapshots (and, with `paimon_sql.compact`, changelogs).

`changes(table, between, read)` streams what changed; `from_options` and `from_bounds` resolve
the two ends as Paimon's ``incremental-between*`` options do.
"""

from paimon_sql.changes.bounds import Between, from_bounds, from_options, is_incremental
from paimon_sql.changes.incremental import ChangeReader, change_schema, changes

__all__ = [
    "Between",
    "ChangeReader",
    "change_schema",
    "changes",
    "from_bounds",
    "from_options",
    "is_incremental",
]
