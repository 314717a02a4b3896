"""The DuckDB execution layer.

Connections and views (`context`), table references bound to sources or inlined SQL (`binder`),
split reading (`reader`) and the one user of DuckDB's source protocol (`source`).
"""
