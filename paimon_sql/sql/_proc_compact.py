"""Compaction procedures: compact (seed 000: full compaction of primary-key and append tables)."""

from __future__ import annotations

from paimon_sql.sql._procedure import Procedure

PROCEDURES: tuple[Procedure, ...] = ()
