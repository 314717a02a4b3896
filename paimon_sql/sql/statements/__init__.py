"""Statement handlers: `dispatch` routes, `dml` writes, `catalog_ddl` changes the catalog; each takes a
`paimon_sql.sql._context.Context`.
"""
