"""Compaction: which files to merge (picking), full compaction, lookup compaction of
deletion-vector tables, and the compaction that follows a write.

These modules never import duckdb: the caller (``paimon_sql.sql``) passes a bucket reader, a
function from a one-bucket `ScanPlan` to its merged rows.
"""
