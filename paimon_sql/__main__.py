"""``python -m paimon_sql``: the ``paimon-sql`` shell, as ``python -m paimon_sql.cli`` runs it."""

from __future__ import annotations

from paimon_sql.cli.main import main

raise SystemExit(main())
