"""The E501 reflow tool (.ci/reflow.py): prose re-filled, everything else kept, idempotent."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("reflow", ROOT / ".ci" / "reflow.py")
assert _spec is not None
assert _spec.loader is not None
reflow = importlib.util.module_from_spec(_spec)
sys.modules["reflow"] = reflow  # dataclasses look their module up
_spec.loader.exec_module(reflow)

LONG = "word " * 30  # 150 columns of prose

SOURCE = f'''"""Summary line that stays as it is.

{LONG}
>>> print("{"x" * 95}")  # a doctest line is never touched
"""

# {LONG}
#: {LONG}
# --- a divider {"-" * 87}
x = 1  # {LONG}


def f(a: int) -> int:
    """One line.

    Args:
        a: {LONG}

    Example::

        {LONG}
    """
    return a
'''


def test_reflow_fills_prose_and_keeps_the_rest():
    out = reflow.reflow(SOURCE, 100)
    lines = out.splitlines()
    over = [line.split()[0] for line in lines if len(line) > 100]
    # prose fits; the doctest, the code line's comment and the literal block are left alone
    assert over == [">>>", "x", "word"]
    assert lines[2] == "word " * 19 + "word"  # 99 columns: the next word would not fit
    assert "# word word" in out
    assert "#: word word" in out  # documented-attribute comments keep their marker
    assert "# --- a divider " + "-" * 84 in lines  # a divider is trimmed to the width
    entry = lines.index("        a: " + "word " * 17 + "word")
    assert lines[entry + 1].startswith("            word")  # an Args entry keeps its hanging indent
    assert _text(out) == _text(SOURCE)


def test_reflow_is_idempotent_and_leaves_short_text_alone():
    once = reflow.reflow(SOURCE, 100)
    assert reflow.reflow(once, 100) == once
    short = '"""Short."""\n\n# a short comment\n'
    assert reflow.reflow(short, 100) == short


@pytest.mark.slow
def test_reflow_keeps_the_package_unchanged_apart_from_prose():
    for path in sorted((ROOT / "paimon_sql").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        out = reflow.reflow(source, 100)
        assert _text(out) == _text(source), path
        assert _program(out) == _program(source), path
        assert reflow.reflow(out, 100) == out, path


def _text(source: str) -> str:
    """The source without whitespace, comment markers and divider runs: what a reflow keeps."""
    return re.sub(r"#:?|\s+", "", re.sub(r"([-=*~_])\1{2,}", "", source))


def _program(source: str) -> str:
    """The AST with each docstring's whitespace normalized: what a reflow must not change."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                value.value = " ".join(value.value.split())
    return ast.dump(tree)
