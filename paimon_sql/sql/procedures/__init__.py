"""``CALL sys.<procedure>(...)``: `procedures` parses and binds a call.

The ``_proc_*`` modules hold the families; each procedure takes a `paimon_sql.sql._context.Context`.
"""
