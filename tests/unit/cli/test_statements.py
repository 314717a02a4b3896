"""Splitting scripts into statements; telling a finished statement from one still being typed."""

from __future__ import annotations

import pytest
import sqlglot.errors

from paimon_sql.cli._statements import Statement, is_complete, split_statements


def test_semicolons_inside_strings_identifiers_and_comments_do_not_split():
    script = (
        "SELECT 'a;b' AS \"c;d\"; -- one;\n"
        "/* two; */ CALL sys.create_tag(table => 'db.t', tag => 'x;y');\n"
        "\n"
        "SELECT $$e;f$$"
    )
    assert split_statements(script) == [
        Statement(text="SELECT 'a;b' AS \"c;d\"", line=1),
        Statement(
            text="-- one;\n/* two; */ CALL sys.create_tag(table => 'db.t', tag => 'x;y')", line=2
        ),
        Statement(text="SELECT $$e;f$$", line=4),
    ]


def test_empty_statements_and_comment_only_pieces_are_dropped():
    assert split_statements(";;\n  ;") == []
    assert split_statements("SELECT 1;;\n-- bye\n") == [Statement(text="SELECT 1", line=1)]


def test_an_unterminated_string_is_a_token_error():
    with pytest.raises(sqlglot.errors.TokenError):
        split_statements("SELECT 'oops;")


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("SELECT 1;", True),
        ("SELECT 1", False),
        ("SELECT 1\nFROM t;", True),
        ("SELECT ';'", False),
        ("SELECT 1; -- trailing comment", True),
        ("SELECT 1 /* open comment;", False),
        ("", True),
    ],
)
def test_is_complete(text, complete):
    assert is_complete(text) is complete
