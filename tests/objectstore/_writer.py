"""One writer process of the concurrency tests.

``python -m tests.objectstore._writer URI TABLE FIRST N`` runs N single-row INSERTs (ids FIRST ..
FIRST+N-1) and prints, as JSON, the ids whose INSERT reported success and the errors of the others.
The AWS_* environment points it at the test server.
"""

from __future__ import annotations

import json
import sys

import paimon_sql
from paimon_sql.errors import PaimonSqlError


def main(uri: str, table: str, first: int, count: int, options: str = "{}") -> None:
    session = paimon_sql.connect(uri, storage_options=json.loads(options))
    ok, errors = [], []
    for i in range(first, first + count):
        try:
            session.sql(f"INSERT INTO {table} VALUES ({i}, 'w{i}')")  # noqa: S608 (ints)
            ok.append(i)
        except PaimonSqlError as err:
            errors.append(f"{i}: {err}")
    session.close()
    print(json.dumps({"ok": ok, "errors": errors}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), *sys.argv[5:])
