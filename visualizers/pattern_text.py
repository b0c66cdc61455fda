"""The pattern as the person wrote it, with chosen conjuncts and variables highlighted.

:func:`locate` finds where each WHERE conjunct, each ``[attr]`` equivalence test and each
variable is written in the source (the DSL parser keeps spans: ``(line, column, length)``,
1-based); :func:`find_predicate` finds the source span of a predicate as ``cep explain``
prints it (``to_text`` of the conjunct; an equivalence test ``b.x = a[1].x`` is the ``[x]``
it came from); :func:`highlighted_html` is the source as escaped HTML with those spans in
``<mark>``. When a span is missing the conjunct's text is matched against the source with
whitespace ignored.

No streamlit, no plotly: the app puts the HTML into ``st.html`` / markdown.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from visualizers.escape import html as html_text


@dataclass(frozen=True)
class Located:
    """A piece of the pattern found in its source: ``source[start:end]``."""

    kind: str       # "conjunct" | "equivalence" | "variable"
    text: str       # the conjunct as printed (to_text), the attribute, or the variable
    start: int
    end: int


def _offsets(source: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", source):
        starts.append(m.end())
    return starts


def _span_range(source: str, span: Sequence[int] | None, starts: list[int]) -> tuple[int, int] | None:
    if not span or len(span) < 3:
        return None
    line, col, length = int(span[0]), int(span[1]), int(span[2])
    if not (1 <= line <= len(starts)) or col < 1 or length < 1:
        return None
    start = starts[line - 1] + col - 1
    end = min(start + length, len(source))
    return (start, end) if start < end else None


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _search_ignoring_space(source: str, needle: str) -> tuple[int, int] | None:
    """The first place ``needle`` is written in ``source`` with any whitespace between its
    characters (and none required)."""
    want = _squeezed(needle)
    if not want:
        return None
    index = [i for i, ch in enumerate(source) if not ch.isspace()]
    squeezed = "".join(source[i] for i in index)
    at = squeezed.find(want)
    if at < 0:
        return None
    return index[at], index[at + len(want) - 1] + 1


def locate(source: str) -> list[Located]:
    """Every WHERE conjunct (as ``cep explain`` names it), ``[attr]`` test and variable of
    the pattern with where it is written; empty when the source does not parse."""
    from engine.dsl.parser import name_spans, parse
    from engine.explain.checks import pattern_conjuncts
    from engine.expr import to_text

    try:
        pattern = parse(source)
    except Exception:  # noqa: BLE001 - any refusal: nothing to highlight
        return []
    starts = _offsets(source)
    out: list[Located] = []
    for c in pattern_conjuncts(pattern):
        text = to_text(c)
        rng = _span_range(source, getattr(c, "span", None), starts)
        if rng is None or _squeezed(source[rng[0]:rng[1]]) != _squeezed(text):
            rng = _search_ignoring_space(source, text) or rng
        if rng is not None:
            out.append(Located("conjunct", text, *rng))
    names = name_spans(source)
    for attr, span in names.get("equivalence", {}).items():
        rng = _span_range(source, span, starts)
        if rng is not None:
            out.append(Located("equivalence", attr, *rng))
    for comp in [*pattern.positive, *pattern.negated]:
        rng = _span_range(source, getattr(comp, "span", None), starts)
        if rng is not None:
            out.append(Located("variable", comp.var, *rng))
    return out


_EQUALITY = re.compile(r"^\s*\w+(?:\[[^\]]*\])?\.(\w+)\s*=\s*\w+(?:\[[^\]]*\])?\.(\w+)\s*$")


def find_predicate(source: str, predicate: str, equivalence: bool | None = None,
                   located: Sequence[Located] | None = None) -> list[tuple[int, int]]:
    """Where the predicate ``cep explain`` prints as ``predicate`` is written: its conjunct,
    or the ``[attr]`` test an equivalence predicate (``b.x = a[1].x``) comes from; matched by
    text with whitespace ignored when the parser's spans do not name it. ``[]`` when it is
    not in the source. ``equivalence`` (the tree's flag) is accepted for the callers' ease;
    an equality of one attribute on both sides that is no conjunct is read as ``[attr]``
    whether flagged or not."""
    found = list(located) if located is not None else locate(source)
    want = _squeezed(predicate)
    hits = [(x.start, x.end) for x in found if x.kind == "conjunct" and _squeezed(x.text) == want]
    if hits:
        return hits
    m = _EQUALITY.match(predicate)
    if m and m.group(1) == m.group(2):  # flagged or not (a negation's candidates are not flagged)
        hits = [(x.start, x.end) for x in found if x.kind == "equivalence" and x.text == m.group(1)]
        if hits:
            return hits
    rng = _search_ignoring_space(source, predicate)
    return [rng] if rng else []


def highlighted_html(source: str, predicates: Iterable[str] = (), variables: Iterable[str] = (),
                     ranges: Iterable[tuple[int, int]] = ()) -> str:
    """The source as escaped HTML inside ``<pre>``, with the given predicates (as ``cep
    explain`` prints them), variables and raw ``(start, end)`` ranges in ``<mark>``."""
    located = locate(source)
    spans = list(ranges)
    for p in predicates:
        spans.extend(find_predicate(source, p, located=located))
    wanted = set(variables)
    spans.extend((x.start, x.end) for x in located if x.kind == "variable" and x.text in wanted)
    return "<pre class=\"cep-pattern\">" + _marked(source, spans) + "</pre>"


def _merged(spans: Iterable[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted((max(0, s), min(limit, e)) for s, e in spans):
        if s >= e:
            continue
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _marked(source: str, spans: Iterable[tuple[int, int]]) -> str:
    parts: list[str] = []
    at = 0
    for s, e in _merged(spans, len(source)):
        parts.append(_escape(source[at:s]))
        parts.append("<mark>" + _escape(source[s:e]) + "</mark>")
        at = e
    parts.append(_escape(source[at:]))
    return "".join(parts)


def _escape(text: str) -> str:
    """HTML-escaped text; its line breaks become ``&#10;`` (kept inside ``<pre>``; no raw
    blank line, which would end an HTML block in markdown)."""
    return html_text(text)


__all__ = ["Located", "find_predicate", "highlighted_html", "locate"]
