"""Re-wrap over-long comment blocks and docstring paragraphs (ruff E501) to the line length.

Only prose is touched, and only a paragraph with a line longer than the limit: it is re-filled
greedily (words are never split, so URLs and identifiers stay whole) with its first-line and
continuation indents kept. Left alone: code, trailing comments after code, doctest lines (``>>>``,
``...`` and their output), literal blocks (after ``::`` or inside ``````` fences), tables, section
headers (``Args:``), directive comments (``noqa``, ``type:``, ``fmt:``, ``pragma``) and a
docstring's one-line summary. A list item (``-``, ``*``, ``1.``) or a Google ``name: text`` entry
starts its own paragraph and keeps its hanging indent. Running it twice changes nothing the second
time.

Usage::

    python .ci/reflow.py [--width 100] [--check] PATH...   # files or folders (*.py)
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ITEM = re.compile(r"^([-*+]|\d+[.)]|[A-Za-z_][\w.*-]*( \([^)]*\))?:)\s+\S")
MARKER = re.compile(r"^([-*+]|\d+[.)]|>>>|[A-Za-z_][\w.*-]*:)$")  # would read as a new item
RULE = re.compile(r"(?P<run>([-=#*~_])\2{3,})$")  # a divider: "# --- title -----"
HEADER = re.compile(r"^[A-Z][\w ]*:$")
DIRECTIVE = re.compile(r"^#\s*(noqa|type:|fmt:|pragma|pyright:|mypy:|ruff:|isort:)|^#!")
COMMENT = re.compile(r"^(#+[:!]?) ?")  # "# ", "#: " (documented attributes), "## "
TABLE = re.compile(r"^(\||\+[-=+]+\+?$|[=-]{3,}(\s+[=-]{3,})*$)")


@dataclass
class Line:
    """One line of prose: its prefix (indent, ``# ``), its own indent and its text."""

    index: int  # position in the file's lines
    prefix: str
    indent: int
    text: str
    verbatim: bool = False


@dataclass
class Paragraph:
    """Lines that re-fill together: the first line's indent and the continuation indent."""

    lines: list[Line] = field(default_factory=list)
    first: int = 0
    rest: int = 0


def split_line(index: int, prefix: str, body: str) -> Line:
    """A prose line from its prefix and the text after it."""
    text = body.lstrip(" ")
    return Line(index, prefix, len(body) - len(text), text.rstrip())


def mark_verbatim(lines: list[Line]) -> None:
    """Mark doctests, literal blocks, fences, tables and headers, which are never re-filled."""
    literal_indent: int | None = None  # inside a ``::`` block: lines deeper than this
    fenced = doctest = False
    for line in lines:
        text = line.text
        if literal_indent is not None and (not text or line.indent > literal_indent):
            line.verbatim = True
            continue
        literal_indent = None
        if text.startswith("```"):
            fenced = not fenced
            line.verbatim = True
            continue
        if fenced:
            line.verbatim = True
            continue
        if text.startswith((">>>", "... ")) or text == "...":
            doctest = True
        elif not text:
            doctest = False
        line.verbatim = doctest or bool(TABLE.match(text) or HEADER.match(text))
        line.verbatim = line.verbatim or text.endswith("\\")  # a continued line, as in a string
        line.verbatim = line.verbatim or bool(RULE.search(text))
        if text.endswith("::"):
            line.verbatim = True
            literal_indent = line.indent


def is_item(line: Line) -> bool:
    """A list item (``-``, ``*``, ``1.``) or a ``name: text`` entry (Google ``Args:``)."""
    return bool(ITEM.match(line.text))


def paragraphs(lines: list[Line], *, hang: int) -> list[Paragraph]:
    """Group prose lines into paragraphs; blank and verbatim lines separate them.

    A ``name: text`` entry continues `hang` columns deeper unless its second line says otherwise
    (4 in a docstring, as Google style; 0 in a comment, where such lines are a list of facts).
    """
    result: list[Paragraph] = []
    current: Paragraph | None = None
    for line in lines:
        if line.verbatim or not line.text:
            current = None
            continue
        item = is_item(line)
        if current is not None and not item:
            hanging = len(current.lines) == 1 and is_item(current.lines[0])
            if hanging and line.indent > current.first:
                current.rest = line.indent  # the second line sets an item's hanging indent
            if line.indent == current.rest:
                current.lines.append(line)
                continue
        current = Paragraph([line], line.indent, line.indent)
        if item:
            marker = line.text.split()[0]
            current.rest = line.indent + (hang if marker.endswith(":") else len(marker) + 1)
        result.append(current)
    return result


def fill(par: Paragraph, width: int) -> list[str]:
    """Re-fill a paragraph greedily; a word longer than the room stays whole on its own line.

    A line never starts with a list marker (``-``, ``1.``): that would read as a new item.
    """
    words = " ".join(line.text for line in par.lines).split()
    prefix = par.lines[0].prefix
    out: list[str] = []
    indent = par.first
    current: list[str] = []
    for word in words:
        if current and len(prefix) + indent + len(" ".join([*current, word])) > width:
            carried = [current.pop()] if MARKER.match(word) and len(current) > 1 else []
            out.append(prefix + " " * indent + " ".join(current))
            indent, current = par.rest, carried
        current.append(word)
    out.append(prefix + " " * indent + " ".join(current))
    return [line.rstrip() for line in out]


def comment_blocks(source: str) -> list[list[Line]]:
    """Runs of whole-line comments at one column, as prose lines."""
    blocks: list[list[Line]] = []
    last: tuple[int, int, str] | None = None  # the previous whole-line comment: row, col, marker
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in tokens:
        if tok.type != tokenize.COMMENT or tok.line[: tok.start[1]].strip():
            continue
        row, col = tok.start
        marker = COMMENT.match(tok.string)
        assert marker is not None  # every comment starts with "#"
        line = split_line(row - 1, " " * col + marker[1] + " ", tok.string[len(marker[0]) :])
        if DIRECTIVE.match(tok.string):
            line.verbatim = True
        if last == (row - 1, col, marker[1]) and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
        last = (row, col, marker[1])
    return blocks


def docstring_blocks(source: str, lines: list[str]) -> list[list[Line]]:
    """Each docstring's lines after its summary, as prose lines (the opening line is left alone)."""
    blocks: list[list[Line]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        ) or not ast.get_docstring(node, clean=False):
            continue
        doc = node.body[0]
        if doc.end_lineno is None or doc.end_lineno == doc.lineno:
            continue
        block = []
        base = len(lines[doc.lineno - 1]) - len(lines[doc.lineno - 1].lstrip())
        for index in range(doc.lineno, doc.end_lineno):  # 0-based: the lines after the opening
            raw = lines[index].rstrip("\n")
            if raw.strip() in ('"""', "'''"):
                continue
            cut = min(base, len(raw) - len(raw.lstrip(" ")))
            block.append(split_line(index, " " * base, raw[cut:]))
        blocks.append(block)
    return blocks


def reflow(source: str, width: int) -> str:
    """The source with its over-long prose paragraphs re-filled."""
    lines = source.splitlines(keepends=True)
    edits: dict[int, tuple[int, list[str]]] = {}  # first line -> (last line, new lines)
    blocks = [(block, 0) for block in comment_blocks(source)]
    blocks += [(block, 4) for block in docstring_blocks(source, lines)]
    for block, hang in blocks:
        mark_verbatim(block)
        for line in block:
            trimmed = trim_rule(lines[line.index], width)
            if trimmed is not None:
                edits[line.index] = (line.index, [trimmed])
        for par in paragraphs(block, hang=hang):
            if any(len(lines[line.index].rstrip("\n")) > width for line in par.lines):
                first, last = par.lines[0].index, par.lines[-1].index
                if last - first + 1 == len(par.lines):  # contiguous (no skipped line inside)
                    edits[first] = (last, fill(par, width))
    for first in sorted(edits, reverse=True):
        last, new = edits[first]
        ending = "\r\n" if lines[last].endswith("\r\n") else "\n"
        lines[first : last + 1] = [text + ending for text in new]
    return "".join(lines)


def trim_rule(raw: str, width: int) -> str | None:
    """An over-long divider (``# --- title ------``) with its dash run cut to fit, else None."""
    text = raw.rstrip("\r\n")
    match = RULE.search(text)
    if len(text) <= width or match is None:
        return None
    keep = len(match["run"]) - (len(text) - width)
    return text[: match.start()] + match["run"][: max(keep, 3)] if keep >= 3 else None


def python_files(paths: list[str]) -> list[Path]:
    """The .py files named or under the folders named."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def main() -> int:
    """Re-wrap the files in place (or, with --check, list those that would change)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--width", type=int, default=100)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if needed")
    args = parser.parse_args()
    changed = 0
    for path in python_files(args.paths):
        source = path.read_text(encoding="utf-8")
        new = reflow(source, args.width)
        if new != source:
            changed += 1
            print(f"{'would reflow' if args.check else 'reflowed'} {path}")
            if not args.check:
                path.write_text(new, encoding="utf-8")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
