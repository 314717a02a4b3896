"""Statement handlers: `dispatch` routes, `dml` writes, `catalog_ddl` changes the catalog.

Each takes a `paimon_sql.sql._context.Context`.
"""
