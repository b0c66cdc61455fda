"""The pattern editor: an Ace code editor (vendored, offline) as a Streamlit component, for the
studio's pattern language and for MATCH_RECOGNIZE queries.

The pure builders (no Streamlit) make what the editor is given:

- :func:`dsl_completions` / :func:`sql_completions`: the words it completes (keywords, event
  types, attributes, variables) and, per variable, the attributes offered after ``x.`` or
  ``x[i].`` (only those of the variable's event type);
- :func:`error_markers`, :func:`data_markers`: the parser's error and the names the data does
  not have, each at its line, column and width with its message, and a :class:`Fix` when the
  message says "did you mean";
- :func:`apply_fix`: the text with exactly the fix's span replaced.

:func:`editor` draws the component. The browser sends the text on Ctrl+Enter (Cmd+Enter), when
the editor loses focus, and after a pause in typing; the value it sends is
``{"text": ..., "n": ...}`` (``n`` counts the sends) and the ``on_change`` callback reads it
from ``st.session_state[key]`` (:func:`sent_text`). Tests send a value the way the browser
does: a widget state for the component's id (see tests/app/test_pattern_editor.py).
"""
from __future__ import annotations

import difflib
import functools
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from engine.dsl.vocabulary import AGG_FUNCS, KEYWORDS, SELECTION_NAMES, STRATEGY_NAMES, UNITS
from engine.model import Pattern, PatternError

COMPONENT_DIR = Path(__file__).resolve().parent / "components" / "pattern_editor"
BUILTIN_ATTRIBUTES = ("ts", "id")  # every event has them (the attribute pickers offer them too)
DSL_WORDS = sorted(KEYWORDS | {"ALL", "NON_OVERLAP", "len"})
SQL_WORDS = (
    "SELECT", "FROM", "MATCH_RECOGNIZE", "PARTITION", "BY", "ORDER", "ASC", "DESC", "MEASURES", "ONE", "ROW",
    "ROWS", "PER", "MATCH", "ALL", "SHOW", "EMPTY", "MATCHES", "OMIT", "WITH", "UNMATCHED", "AFTER", "SKIP",
    "PAST", "TO", "PATTERN", "SUBSET", "DEFINE", "AS", "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "IN",
    "BETWEEN", "LIKE", "CASE", "WHEN", "THEN", "ELSE", "END", "RUNNING", "FINAL", "VALUES", "WHERE", "WITHIN",
    "INTERVAL", "CAST",
)
SQL_FUNCTIONS = ("PREV", "NEXT", "FIRST", "LAST", "CLASSIFIER", "MATCH_NUMBER", "COUNT", "SUM", "AVG", "MIN", "MAX",
                 "ABS")
_HINT = re.compile(r"did you mean `?([^`?\s]+)`?\?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_QUOTED = re.compile(r"`([^`]+)`")


# --------------------------------------------------------------------------- completion

def dsl_completions(schema: dict[str, dict[str, str]], variables: dict[str, str]) -> dict[str, Any]:
    """What the DSL editor completes: ``keywords`` (clauses, strategies, selections, units),
    ``functions`` (aggregates), ``types`` (event types of the data), ``attributes`` (every
    attribute of the data, with ``ts`` and ``id``), ``variables`` (variable -> its event type)
    and ``members`` (variable -> the attributes offered after ``x.`` / ``x[i].``: those of its
    type, or every attribute for a type the data does not have or ``ANY``)."""
    every = sorted({a for attrs in schema.values() for a in attrs} | set(BUILTIN_ATTRIBUTES))
    members = {}
    for var, type_name in variables.items():
        own = schema.get(type_name)
        members[var] = sorted(set(own) | set(BUILTIN_ATTRIBUTES)) if own is not None else every
    keywords = DSL_WORDS + list(STRATEGY_NAMES) + list(SELECTION_NAMES) + sorted(set(UNITS))
    return {"keywords": keywords, "functions": list(AGG_FUNCS), "types": sorted(schema),
            "attributes": every, "variables": dict(variables), "members": members}


def sql_completions(columns: list[str], variables: list[str]) -> dict[str, Any]:
    """What the SQL editor completes: SQL keywords and functions (PREV, LAST ...), the table's
    columns, the pattern variables, and after ``V.`` the columns."""
    cols = list(dict.fromkeys(columns))
    return {"keywords": sorted(set(SQL_WORDS)), "functions": list(SQL_FUNCTIONS), "types": [], "attributes": cols,
            "variables": {v: "row" for v in variables}, "members": {v: cols for v in variables}}


_COMPONENT = re.compile(r"(?:^|[(,])\s*[!~¬]?\s*\(?\s*([A-Za-z_][A-Za-z_0-9]*)\s*[+*?]?\s+([A-Za-z_][A-Za-z_0-9]*)")


def variables_of(pattern: Pattern | None, text: str = "") -> dict[str, str]:
    """Variable -> event type: those of ``pattern`` (the last valid one), then those written in
    ``text``'s PATTERN clause that it does not have yet (text that does not parse yet)."""
    out: dict[str, str] = {}
    if pattern is not None:
        out.update({c.var: c.type for c in pattern.components()})
    head = re.split(r"\b(?:WHERE|WITHIN|OUTPUT|AGG|GROUP|RETURN)\b", text, maxsplit=1, flags=re.IGNORECASE)[0]
    head = re.sub(r"^\s*PATTERN\s+", "", head, flags=re.IGNORECASE)
    head = re.sub(r"\b(?:SEQ|AND|OR)\s*\(", "(", head, flags=re.IGNORECASE)
    for type_name, var in _COMPONENT.findall(head):
        if var.upper() not in KEYWORDS:
            out.setdefault(var, type_name)
    return out


# --------------------------------------------------------------------------- markers and fixes

@dataclass(frozen=True)
class Fix:
    """Replace the ``width`` characters at ``line``/``column`` (1-based) with ``replacement``."""

    line: int
    column: int
    width: int
    replacement: str
    wrong: str

    @property
    def label(self) -> str:
        return f"Replace {self.wrong} with {self.replacement}"


@dataclass(frozen=True)
class Marker:
    """A problem at a place of the editor's text: 1-based line and column, a width in characters,
    the message (plain, without the place) and the hint, ``error`` or ``warning``, and a fix."""

    line: int
    column: int
    width: int
    message: str
    hint: str | None = None
    severity: str = "error"
    fix: Fix | None = field(default=None)

    @property
    def text(self) -> str:
        """The message as the line under the editor and its hover say it (plain text, no backticks)."""
        tail = f"; {self.hint}" if self.hint and self.hint.startswith("did you mean") else (
            f" ({self.hint})" if self.hint else "")
        return f"Line {self.line}, column {self.column}: {self.message}{tail}".replace("`", "")

    def as_arg(self) -> dict[str, Any]:
        """The marker as the component receives it (JSON)."""
        out = asdict(self)
        out["text"] = self.text
        return out


def _line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _clip(text: str, line: int, column: int, width: int) -> tuple[int, int, int]:
    """The span clipped to its line (an error at the end of the text keeps one column)."""
    ln = _line_text(text, line)
    line = max(1, min(line, text.count("\n") + 1))
    column = max(1, min(column, len(ln) + 1))
    width = max(1, min(width, max(1, len(ln) - column + 1)))
    return line, column, width


def fix_for(text: str, span: tuple[int, int, int], message: str, hint: str | None) -> Fix | None:
    """The one-click fix of a "did you mean X" hint: the misspelled name inside the span (the
    first name quoted in the message that is written there, else the word of the span closest to
    X) replaced with X. None without such a hint or when no word of the span is the name."""
    m = _HINT.search(hint or "")
    if not m:
        return None
    replacement = m.group(1)
    line, column, width = span
    ln = _line_text(text, line)
    start = column - 1
    piece = ln[start:start + width]
    words = [(w.start(), w.group()) for w in _WORD.finditer(piece)]
    if not words:
        return None
    quoted = [q for q in _QUOTED.findall(message) if q != replacement]
    ordered = list(reversed(words)) if "attribute" in message else words  # `a.a`: the attribute is the last
    chosen = next(((pos, w) for q in quoted for pos, w in ordered if w == q), None)
    if chosen is None:
        chosen = max(reversed(words), key=lambda pw: difflib.SequenceMatcher(None, pw[1], replacement).ratio())
    pos, wrong = chosen
    if wrong == replacement:
        return None
    return Fix(line, column + pos, len(wrong), replacement, wrong)


def marker_of(err: PatternError, text: str, severity: str = "error") -> Marker | None:
    """A parse or schema error (with a span into ``text``) as a marker; None without a place."""
    span = getattr(err, "span", None)
    if not span:
        return None
    line, column, width = _clip(text, span[0], span[1], span[2])
    return Marker(line, column, width, err.message, err.hint, severity,
                  fix_for(text, (line, column, width), err.message, err.hint))


def error_markers(err: PatternError | None, text: str) -> list[Marker]:
    """The parser's error (a DslError / SqlError about ``text``) as markers (none or one)."""
    if err is None or getattr(err, "source", text) != text:
        return []
    m = marker_of(err, text)
    return [m] if m else []


def data_markers(pattern: Pattern, schema: dict[str, dict[str, str]], text: str) -> list[Marker]:
    """The names of ``pattern`` (parsed from ``text``) the data does not have, as ``cep run``
    checks them (engine.dsl.check_schema): the error (an unknown attribute) and the warnings
    (event types the data does not have), each at the name in ``text``."""
    from engine.dsl import check_schema
    from engine.dsl.parser import name_spans

    if not schema:
        return []
    out: list[Marker] = []
    try:
        check_schema(pattern, schema, text)
    except PatternError as err:
        m = marker_of(err, text)
        if m:
            out.append(m)
    bare = pattern.model_copy(update={"where": [], "equivalence": [], "returns": [], "aggregate": None})
    try:
        warnings = bare.check_schema(schema)
    except PatternError:
        warnings = []
    types = name_spans(text)["type"]
    used: set[str] = set()
    for warning in warnings:
        for c in pattern.components():
            msg = f"event type `{c.type}` does not occur in the data"
            if c.var in used or not (warning == msg or warning.startswith(msg + "; ")):
                continue
            used.add(c.var)
            span = types.get(c.var)
            if span:
                hint = warning[len(msg) + 2:] or None
                line, column, width = _clip(text, *span)
                out.append(Marker(line, column, width, msg, hint, "warning",
                                  fix_for(text, (line, column, width), msg, hint)))
            break
    return out


def apply_fix(text: str, fix: Fix) -> str:
    """``text`` with exactly the fix's span replaced (the rest unchanged, line ends kept)."""
    lines = text.split("\n")
    if not 0 < fix.line <= len(lines):
        return text
    ln = lines[fix.line - 1]
    start = fix.column - 1
    if ln[start:start + fix.width] != fix.wrong:
        return text  # the text changed since the fix was made
    lines[fix.line - 1] = ln[:start] + fix.replacement + ln[start + fix.width:]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the component

_component: Callable[..., Any] | None = None


def _declared() -> Callable[..., Any]:
    global _component
    if _component is None:
        import streamlit.components.v1 as components

        _component = components.declare_component("pattern_editor", path=str(COMPONENT_DIR))
    return _component


def sent_text(value: Any) -> str | None:
    """The text in a value the editor sent (``{"text", "n"}``), or a plain string set by code."""
    if isinstance(value, dict):
        txt = value.get("text")
        return txt if isinstance(txt, str) else None
    return value if isinstance(value, str) else None


def editor(text: str, *, key: str, version: str, mode: str = "dsl", completions: dict[str, Any] | None = None,
           markers: list[Marker] | None = None, height: int = 260, label: str = "",
           on_change: Callable[..., None] | None = None, args: tuple[Any, ...] = ()) -> Any:
    """Draw the editor with ``text``. It replaces what it shows with ``text`` when ``version``
    changes, unless ``text`` is what it sent last (the person's own text, kept as typed; they may
    have typed on since). Returns the last value the browser sent (None before the first)."""
    callback = functools.partial(on_change, *args) if on_change is not None else None
    return _declared()(text=text, version=str(version), mode=mode, completions=completions or {},
                       markers=[m.as_arg() for m in markers or []], height=int(height), label=label,
                       key=key, default=None, on_change=callback)
