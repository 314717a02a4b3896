"""Cut SQL text into statements at the semicolons outside strings, identifiers and comments.

The sqlglot tokenizer (DuckDB dialect) finds those semicolons; it also reads Spark forms
(``CALL sys.x(...)``) that DuckDB's own ``extract_statements`` rejects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import TokenType

if TYPE_CHECKING:
    from sqlglot.tokens import Token

_DIALECT = Dialect.get_or_raise("duckdb")


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    """One statement's text (without its semicolon) and the line of its first word (1-based)."""

    text: str
    line: int


def split_statements(text: str) -> list[Statement]:
    r"""The statements of `text`; comment-only pieces are dropped, the last ``;`` is optional.

    Raises:
        sqlglot.errors.TokenError: an unterminated string or comment.

    >>> [s.text for s in split_statements("SELECT 'a;b'; -- c;\nSELECT 2")]
    ["SELECT 'a;b'", '-- c;\nSELECT 2']
    >>> split_statements("  ;\n-- only a comment\n")
    []
    """
    statements: list[Statement] = []
    start = 0
    pending: list[Token] = []
    for token in _DIALECT.tokenize(text):
        if token.token_type != TokenType.SEMICOLON:
            pending.append(token)
            continue
        if pending:
            statements.append(_statement(text[start : token.start], pending[0].line))
        start, pending = token.end + 1, []
    if pending:
        statements.append(_statement(text[start:], pending[0].line))
    return statements


def is_complete(text: str) -> bool:
    """Whether `text` ends with a statement's ``;`` (outside strings and comments), or holds no SQL.

    >>> is_complete("SELECT 1;"), is_complete("SELECT ';'"), is_complete("SELECT 1; -- done")
    (True, False, True)
    >>> is_complete("SELECT 'unterminated;"), is_complete("-- just a comment")
    (False, True)
    """
    try:
        tokens = _DIALECT.tokenize(text)
    except TokenError:
        return False
    return not tokens or tokens[-1].token_type == TokenType.SEMICOLON


def _statement(piece: str, line: int) -> Statement:
    return Statement(text=piece.strip(), line=line)
