"""The paimon-sql shell: `paimon_sql.cli.main` is the entry point (``python -m paimon_sql.cli``).

The package imports nothing itself, so its modules import each other without a cycle: ``main``
parses the arguments and runs a ``_shell.Shell``, ``repl`` reads statements interactively,
``_commands`` runs the dot-commands and ``output`` renders results.
"""
