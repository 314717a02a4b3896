"""Second-opinion Paimon readers/writers: pypaimon and pypaimon-rust, each in its own virtualenv.

>>> from tests.second_opinion import read_with
>>> read_with("pypaimon-rust", warehouse, "db.pk_dedup", where="id > 1")  # doctest: +SKIP

The readers run as subprocesses (``_worker.py``) in virtualenvs cached under
``<cache>/venvs/{pypaimon,pypaimon-rust}`` and hand back data through an Arrow IPC file.
Failures raise :class:`SecondOpinionError` carrying the subprocess's stderr.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.ipc as ipc

from tests.second_opinion._venv import VenvError, cache_dir, venv_python

__all__ = [
    "READERS",
    "SecondOpinionError",
    "VenvError",
    "cache_dir",
    "read_with",
    "run_worker",
    "venv_python",
    "versions",
    "write_with",
]

Reader = Literal["pypaimon", "pypaimon-rust"]
READERS: tuple[Reader, ...] = ("pypaimon", "pypaimon-rust")
_WORKER = Path(__file__).with_name("_worker.py")


class SecondOpinionError(RuntimeError):
    """A second-opinion reader or writer failed; the message holds its stderr."""


def run_worker(reader: Reader, request: dict[str, Any], *, timeout: float = 3600) -> dict[str, Any]:
    """Run ``_worker.py`` in ``reader``'s virtualenv with ``request``; return its JSON answer."""
    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}; expected one of {READERS}")
    python = venv_python(reader)
    with tempfile.TemporaryDirectory(prefix="paimon-sql-2nd-") as tmp:
        req = Path(tmp) / "request.json"
        req.write_text(json.dumps({**request, "reader": reader}))
        try:
            proc = subprocess.run(
                [str(python), str(_WORKER), str(req)],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as err:
            raise SecondOpinionError(
                f"{reader} {request['op']} timed out after {timeout}s"
            ) from err
    if proc.returncode != 0:
        raise SecondOpinionError(
            f"{reader} {request['op']} of {request.get('table')!r} in "
            f"{request.get('warehouse')} failed (exit {proc.returncode}):\n{proc.stderr[-6000:]}"
        )
    try:
        return dict(json.loads(proc.stdout.strip().splitlines()[-1]))
    except (IndexError, ValueError) as err:
        raise SecondOpinionError(
            f"{reader} printed no JSON answer:\nstdout: {proc.stdout[-2000:]}\n"
            f"stderr: {proc.stderr[-4000:]}"
        ) from err


def read_with(
    reader: Reader,
    warehouse: Path | str,
    table: str,
    *,
    snapshot: int | None = None,
    columns: list[str] | tuple[str, ...] | None = None,
    where: str | None = None,
) -> pa.Table:
    """Read ``table`` (``"db.name"``) of a filesystem-catalog ``warehouse`` with ``reader``.

    ``where`` is a SQL condition. pypaimon-rust runs it in DataFusion SQL; pypaimon parses it with
    its own ``where_parser`` (comparisons, IN, BETWEEN, IS NULL, LIKE, AND/OR) and filters rows.
    ``snapshot`` time-travels (pypaimon-rust: ``VERSION AS OF``; pypaimon: ``scan.snapshot-id``).
    """
    with tempfile.TemporaryDirectory(prefix="paimon-sql-2nd-") as tmp:
        out = Path(tmp) / "result.arrow"
        run_worker(
            reader,
            {
                "op": "read",
                "warehouse": str(warehouse),
                "table": table,
                "snapshot": snapshot,
                "columns": list(columns) if columns else None,
                "where": where,
                "out": str(out),
            },
        )
        with pa.memory_map(str(out)) as source:
            # read_all copies out of the map, so the temp dir can go.
            return ipc.open_file(source).read_all()


def write_with(
    reader: Reader,
    warehouse: Path | str,
    table: str,
    commits: list[pa.Table],
    *,
    create: dict[str, Any] | None = None,
) -> list[float]:
    """Write each Arrow table in ``commits`` as one batch commit; return seconds per commit.

    ``create`` (optional) creates database and table first: ``{"columns": [(name, "BIGINT NOT
    NULL"), ...], "primary_keys": [...], "options": {"bucket": "4"}}``.
    """
    with tempfile.TemporaryDirectory(prefix="paimon-sql-2nd-") as tmp:
        inputs = []
        for i, data in enumerate(commits):
            path = Path(tmp) / f"commit-{i}.arrow"
            with ipc.new_file(str(path), data.schema) as sink:
                sink.write_table(data)
            inputs.append(str(path))
        answer = run_worker(
            reader,
            {
                "op": "write",
                "warehouse": str(warehouse),
                "table": table,
                "create": create,
                "inputs": inputs,
            },
        )
    return [float(s) for s in answer["seconds"]]


def versions(reader: Reader) -> dict[str, str]:
    """Python and package versions inside ``reader``'s virtualenv."""
    answer = run_worker(reader, {"op": "versions"})
    answer.pop("versions", None)
    return {str(k): str(v) for k, v in answer.items()}
