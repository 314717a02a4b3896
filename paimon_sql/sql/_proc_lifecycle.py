"""Lifecycle procedures: expire_snapshots, remove_orphan_files (seed 003)."""

from __future__ import annotations

from paimon_sql.sql._procedure import Procedure

PROCEDURES: tuple[Procedure, ...] = ()
