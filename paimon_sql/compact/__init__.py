"""Compaction: what happens to a table's files after they are written.

Which runs to merge (`picking`), full compaction (`full`), the lookup compaction of
deletion-vector tables (`lookup`), and the compaction that follows a write (`after_write`).

These modules never import duckdb: the caller (``paimon_sql.sql``) passes a bucket reader, a
function from a one-bucket `ScanPlan` to its merged rows.
"""
