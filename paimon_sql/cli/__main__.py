"""``python -m paimon_sql.cli``: the ``paimon-sql`` shell."""

from __future__ import annotations

from paimon_sql.cli.main import main

raise SystemExit(main())
