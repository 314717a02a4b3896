"""Tag and rollback procedures: create_tag, delete_tag, rename_tag, replace_tag,
create_tag_from_timestamp, expire_tags, rollback, rollback_to_timestamp (seed 003)."""

from __future__ import annotations

from paimon_sql.sql._procedure import Procedure

PROCEDURES: tuple[Procedure, ...] = ()
