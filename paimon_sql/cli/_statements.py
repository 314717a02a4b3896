"""Cut SQL text into statements at the semicolons outside strings, identifiers and comments.

The sqlglot tokenizer (DuckDB dialect) finds those semicolons; it also reads Spark forms
(``CALL sys.x(...)``) that DuckDB's own ``extract_statements`` rejects. A script (``-c``, ``-f``,
stdin, ``.read``) may also hold dot-commands, as sqlite3 and DuckDB's shells allow: a line whose
first character (after blanks) is ``.`` where a statement would start is one, up to the end of
the line or an unquoted ``;``.
"""

from __future__ import annotations

import re
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
    command: bool = False  # a dot-command line (``.tables``), not SQL
    shift: int = 0  # lines of the script before `text` begins (`split_script` sets it)
    indent: int = 0  # characters before `text` on the line it begins on


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


def split_script(text: str) -> list[Statement]:
    r"""The statements and dot-commands of `text`, in order (see the module docstring).

    Raises:
        sqlglot.errors.TokenError: an unterminated string or comment.

    >>> for s in split_script(".mode csv\nSELECT 1; .tables d\nSELECT '\n.x'; .timer on; SELECT 2"):
    ...     print(s.line, s.command, repr(s.text))
    1 True '.mode csv'
    2 False 'SELECT 1'
    2 True '.tables d'
    3 False "SELECT '\n.x'"
    4 True '.timer on'
    4 False 'SELECT 2'
    """
    items: list[Statement] = []
    position = 0
    while True:
        position = _skip(text, position, _BLANKS)
        word = _skip(text, position, _BLANKS_AND_COMMENTS)
        if word >= len(text):
            return items
        line = text.count("\n", 0, word) + 1
        if text[word] == ".":
            command, position = _cut_command(text, word)
            items.append(Statement(text=command, line=line, command=True))
            continue
        end, after = _statement_end(text, position)
        piece = text[position:end]
        tokens = _DIALECT.tokenize(piece)
        if tokens:
            first = text.count("\n", 0, position) + tokens[0].line
            begins = position + len(piece) - len(piece.lstrip())
            shift, indent = text.count("\n", 0, begins), begins - text.rfind("\n", 0, begins) - 1
            items.append(Statement(text=piece.strip(), line=first, shift=shift, indent=indent))
        position = after


_BLANKS = re.compile(r"\s*")
_BLANKS_AND_COMMENTS = re.compile(r"(?:\s+|--[^\n]*|/\*.*?\*/)*", re.S)


def _skip(text: str, position: int, pattern: re.Pattern[str]) -> int:
    match = pattern.match(text, position)
    return position if match is None else match.end()


def _statement_end(text: str, start: int) -> tuple[int, int]:
    """Where the statement from `start` ends (its semicolon) and where the next one starts.

    Only text up to each candidate semicolon is tokenized, so a dot-command later on the same line
    (``SELECT 1; .read it's.sql``) does not stop the statement before it.
    """
    search = start
    while (semicolon := text.find(";", search)) >= 0:
        try:
            tokens = _DIALECT.tokenize(text[start : semicolon + 1])
        except TokenError:
            tokens = []  # the semicolon is inside a string or comment still open
        if tokens and tokens[-1].token_type == TokenType.SEMICOLON:
            return semicolon, semicolon + 1
        search = semicolon + 1
    try:
        _DIALECT.tokenize(text[start:])  # the last statement's ';' is optional
    except TokenError:
        # raise it again with the offset of the open string counted from the script's start
        _DIALECT.tokenize(" " * start + text[start:])
        raise
    return len(text), len(text)


def _cut_command(text: str, start: int) -> tuple[str, int]:
    """The dot-command at `start` (to its line's end or an unquoted ``;``); where SQL resumes."""
    quote = None
    for position in range(start, len(text)):
        char = text[position]
        if char == "\n" or (char == ";" and quote is None):
            return text[start:position].strip(), position + 1
        if char in "'\"":
            quote = None if quote == char else (quote or char)
    return text[start:].strip(), len(text)


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
