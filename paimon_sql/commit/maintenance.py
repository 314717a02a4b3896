"""What a successful commit sets off, as Java's committer does.

Automatic tags, then snapshot expiration.

`after_commit` runs once the new snapshot file exists; a failure here never undoes the commit (the
snapshot is already visible to readers), so each step reports its own errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.commit.expire import expire_by_options
from paimon_sql.commit.tags import run_after_commit as tags_after_commit

if TYPE_CHECKING:
    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot


def after_commit(table: Table, snapshot: Snapshot) -> None:
    """Create the tags `tag.automatic-creation` asks for, then expire snapshots by retention."""
    tags_after_commit(table, snapshot)
    expire_by_options(table, snapshot)
