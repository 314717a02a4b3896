"""Snapshot expiration, rollback and the file clean-up they share (seed 003, paimon-format.md).

A data file, manifest, index file or changelog file may be deleted only when no live snapshot and no tag still
uses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot


def clean_after_tag_deletion(table: Table, tagged: Snapshot) -> int:
    """Delete the files only the deleted tag's snapshot still held (call after removing the tag file).

    Returns the number of files deleted. Files of a live snapshot or of another tag are kept.
    """
    raise UnsupportedFeatureError("tag clean-up is not implemented yet")
