"""``CALL sys.<procedure>(...)``: Paimon's Spark procedures, with Spark's names and arguments.

Arguments are named (``table => 'db.t'``) or positional, in the order of the procedure's parameters,
as in Spark and Flink. Each family of procedures lives in its own module and lists its `Procedure`s;
this module parses the call, binds the arguments, and runs it. The result is a small Arrow table
(Spark's procedure output columns).

>>> parse_call("CALL sys.create_tag(table => 'db.t', tag => 'nightly', snapshot => 3)")
('create_tag', [], {'table': 'db.t', 'tag': 'nightly', 'snapshot': 3})
>>> parse_call("call sys.rollback('db.t', '2')")
('rollback', ['db.t', '2'], {})
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from paimon_sql.errors import SqlError
from paimon_sql.sql import dialect
from paimon_sql.sql.names import refuse_in_transaction
from paimon_sql.sql.procedures import _proc_check, _proc_compact, _proc_lifecycle, _proc_tags
from paimon_sql.sql.procedures._procedure import Param, Procedure

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pyarrow as pa

    from paimon_sql.sql._context import Context


def _literal(node: exp.Expression, procedure: str) -> Any:
    if isinstance(node, exp.Neg):
        return -_literal(node.this, procedure)
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
        return node.this.this  # TIMESTAMP '2024-01-01 00:00:00' (Spark's typed literal): its text
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        return float(text) if any(c in text for c in ".eE") else int(text)
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, (exp.Column, exp.Identifier, exp.Var)) and node.name.lower() in (
        "true",
        "false",
    ):
        return node.name.lower() == "true"
    raise SqlError(
        f"CALL sys.{procedure}: argument {node.sql('spark')!r} is not a literal; "
        "pass strings in quotes and numbers as numbers"
    )


def parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]] | None:
    """``CALL [sys.]name(args)`` as (name, positional arguments, named arguments).

    None if not a CALL.
    """
    call = dialect.parse_call(text)  # the dialect checks the form: sys namespace, argument order
    if call is None:
        return None
    name = call.procedure
    positional: list[Any] = []
    named: dict[str, Any] = {}
    for argument in call.expressions:
        if isinstance(argument, exp.Kwarg):
            named[argument.this.name.lower()] = _literal(argument.expression, name)
        else:
            positional.append(_literal(argument, name))
    return name, positional, named


def bind(
    procedure: Procedure, positional: Sequence[Any], named: Mapping[str, Any]
) -> dict[str, Any]:
    """The arguments by parameter name; a clear error for unknown, repeated or missing ones."""
    names = [p.name for p in procedure.params]
    if len(positional) > len(names):
        raise SqlError(
            f"CALL sys.{procedure.signature()} takes at most {len(names)} arguments, got "
            f"{len(positional)}"
        )
    args: dict[str, Any] = dict(zip(names, positional, strict=False))  # fewer arguments than names
    for key, value in named.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SqlError(
                f"CALL sys.{procedure.name} has no parameter {key!r}; {hint}it takes "
                f"{procedure.signature()}"
            )
        if key in args:
            raise SqlError(f"CALL sys.{procedure.name}: parameter {key!r} is given twice")
        args[key] = value
    args = {k: v for k, v in args.items() if v is not None}
    missing = [p.name for p in procedure.params if p.required and p.name not in args]
    if missing:
        raise SqlError(
            f"CALL sys.{procedure.name} needs {', '.join(missing)}; it takes "
            f"{procedure.signature()}"
        )
    return args


def registry() -> dict[str, Procedure]:
    """Every procedure by name (each family module lists its own)."""
    found: dict[str, Procedure] = {}
    families = (
        _proc_tags.PROCEDURES,
        _proc_lifecycle.PROCEDURES,
        _proc_compact.PROCEDURES,
        _proc_check.PROCEDURES,
    )
    for family in families:
        for procedure in family:
            found[procedure.name] = procedure
    return found


def lookup(name: str) -> Procedure:
    """The procedure called `name`; an error naming the close and the available ones otherwise."""
    known = registry()
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, list(known), n=3)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise SqlError(f"unknown procedure sys.{name}; {hint}available: {', '.join(sorted(known))}")


def call(ctx: Context, text: str) -> pa.Table | None:
    """Run a ``CALL sys.…`` statement; None when `text` is not a CALL."""
    parsed = parse_call(text)
    if parsed is None:
        return None
    name, positional, named = parsed
    procedure = lookup(name)
    refuse_in_transaction(ctx, "CALL", f"sys.{name}")
    return procedure.run(ctx, bind(procedure, positional, named))


__all__ = ["Param", "Procedure", "bind", "call", "lookup", "parse_call", "registry"]
