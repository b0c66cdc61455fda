"""Edits of a MATCH_RECOGNIZE query made on the Design canvas: pure functions from the query text
and a change to the new query text (or an :class:`EditError` for a person).

The text keeps everything as written except what the edit touches: the span inside
``PATTERN ( ... )`` (written again with ``row_pattern.render``, the canonical spelling), the DEFINE
items added, changed or removed, and, when a variable is renamed, the places that name it
(``B.price``, ``DEFINE B AS``, ``SUBSET U = (B)``, ``SKIP TO B``; a string such as ``CLASSIFIER() =
'B'`` is left as written). A term label is read with the row-pattern parser and a DEFINE condition
with the query parser, so a mistake is reported with its line, column and caret.

Paths name places in the pattern tree as :mod:`visualizers.sql_canvas` draws them. Nothing here
imports streamlit."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from engine.engines.sql.errors import SqlError, error_at
from engine.engines.sql.lexer import Token, tokenize
from engine.engines.sql.parser import parse_query
from engine.engines.sql.query import Query
from engine.engines.sql.row_pattern import (Alt, Concat, Empty, Exclusion, Node, PatternParser, Permute, Quantified,
                                            Var, render, variable_name, variables)
from visualizers.escape import unescape_markdown
from visualizers.sql_canvas import (NO_DEFINE, Path, box_symbol, children, container_of, is_term, members, node_at,
                                    parse_id, query_to_canvas)


class EditError(ValueError):
    """An edit that cannot be applied: ``message`` for a person, ``detail`` the caret lines."""

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.message = message
        self.detail = detail


def _from_sql_error(what: str, err: SqlError) -> EditError:
    return EditError(f"{what}: {err.message}" + (f" ({err.hint})" if err.hint else ""), str(err))


# --------------------------------------------------------------------------- reading

def parse_text(text: str) -> Query:
    try:
        return parse_query(text)
    except SqlError as err:
        raise _from_sql_error("the query does not parse; fix it in the editor first", err) from None


def parse_label(label: str) -> Node:
    """A node's label read as a row-pattern term (``B+?``, ``"b"{2,3}``, ``(C | D)``)."""
    label = label.strip()
    if not label:
        raise EditError("the node has no label; write a variable with its quantifier, e.g. `B+?`")
    try:
        tokens = tokenize(label)
        parser = PatternParser(label, tokens, 0)
        node = parser.alternation()
        if parser.tok.kind != "end":
            t = parser.tok
            raise error_at(label, t.start, f"unexpected {t.text!r} in the label",
                           "a label is a row-pattern term: a variable with its quantifier, e.g. B+? or (C | D)",
                           max(1, t.end - t.start))
    except SqlError as err:
        raise _from_sql_error(f"cannot read `{label}` as a row-pattern term", err) from None
    if isinstance(node, Concat) and not node.parts:
        raise EditError("the node has no label; write a variable with its quantifier, e.g. `B+?`")
    return strip_offsets(node)


def strip_offsets(node: Node) -> Node:
    """The tree with every variable's source offset set to 0 (trees compare by meaning)."""
    if isinstance(node, Var):
        return Var(node.name)
    if isinstance(node, Concat):
        return Concat(tuple(strip_offsets(p) for p in node.parts))
    if isinstance(node, Alt):
        return Alt(tuple(strip_offsets(p) for p in node.options))
    if isinstance(node, Permute):
        return Permute(tuple(strip_offsets(p) for p in node.items))
    if isinstance(node, (Quantified, Exclusion)):
        return replace(node, body=strip_offsets(node.body))
    return node


def _tokens_between(tokens: list[Token], start: int, end: int) -> list[Token]:
    return [t for t in tokens if start <= t.start < end]


@dataclass(frozen=True)
class Spans:
    """Where the query's parts are (character offsets into the text)."""

    pattern: tuple[int, int]                     # inside PATTERN ( ... )
    body_close: int                              # the ) that closes MATCH_RECOGNIZE (
    define_keyword: int | None                   # DEFINE
    defines: dict[str, tuple[int, int, int]]     # variable -> (name start, condition start, condition end)
    last_clause_end: int                         # the end of the last token before body_close


def spans(text: str, query: Query | None = None) -> Spans:
    query = query or parse_text(text)
    tokens = tokenize(text)
    k = next(i for i, t in enumerate(tokens) if t.is_word("MATCH_RECOGNIZE"))
    depth = 0
    pattern: tuple[int, int] | None = None
    close = None
    i = k + 1
    while i < len(tokens):
        t = tokens[i]
        if t.is_symbol("("):
            depth += 1
        elif t.is_symbol(")"):
            depth -= 1
            if depth == 0:
                close = i
                break
        elif depth == 1 and pattern is None and t.is_word("PATTERN") and tokens[i + 1].is_symbol("("):
            parser = PatternParser(text, tokens, i + 2)
            parser.parse()
            pattern = (tokens[i + 1].end, tokens[parser.pos].start)
            i = parser.pos + 1
            continue
        i += 1
    assert pattern is not None and close is not None  # the query parsed
    by_start = {t.start: n for n, t in enumerate(tokens)}
    defines = {}
    for name, expression in query.defines.items():
        n = by_start[expression.offset]
        defines[name] = (tokens[n - 2].start, expression.offset, expression.offset + len(expression.text))
    keyword = None
    if defines:
        first = min(v[0] for v in defines.values())
        keyword = tokens[by_start[first] - 1].start
    return Spans(pattern, tokens[close].start, keyword, defines, tokens[close - 1].end)


# --------------------------------------------------------------------------- the pattern

def pattern_text(node: Node) -> str:
    """What goes between PATTERN's parentheses (the empty pattern is written ``()`` -> ``PATTERN ()``)."""
    if isinstance(node, Empty) or (isinstance(node, Concat) and not node.parts):
        return ""
    return render(node)


def replace_pattern(text: str, node: Node) -> str:
    """The query with PATTERN's content written as ``node`` (spaces inside the parentheses kept);
    the same text when ``node`` means the same pattern as it spells."""
    query = parse_text(text)
    if pattern_text(strip_offsets(query.pattern)) == pattern_text(strip_offsets(node)):
        return text
    start, end = spans(text, query).pattern
    inside = text[start:end]
    lead = inside[:len(inside) - len(inside.lstrip())]
    trail = inside[len(inside.rstrip()):]
    return text[:start] + lead + pattern_text(node) + trail + text[end:]


def _concat(parts: list[Node]) -> Node | None:
    flat: list[Node] = []
    for p in parts:
        flat.extend(p.parts if isinstance(p, Concat) else [p])
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else Concat(tuple(flat))


@dataclass
class TreeEdit:
    """Changes to a pattern tree, each by its path in the tree as drawn."""

    replaced: dict[Path, Node] = field(default_factory=dict)
    deleted: set[Path] = field(default_factory=set)
    inserted: dict[Path, list[tuple[int, Node]]] = field(default_factory=dict)  # container -> (index, node)
    wrapped: dict[Path, tuple[list[Node], list[Node]]] = field(default_factory=dict)  # before, after

    def empty(self) -> bool:
        return not (self.replaced or self.deleted or self.inserted or self.wrapped)

    def insert(self, container: Path, index: int, node: Node) -> None:
        self.inserted.setdefault(container, []).append((index, node))

    def wrap(self, path: Path, node: Node, after: bool) -> None:
        before_list, after_list = self.wrapped.setdefault(path, ([], []))
        (after_list if after else before_list).append(node)


def apply_tree(root: Node, edit: TreeEdit) -> Node:
    """The pattern after ``edit``; a part left with nothing in it goes too (the empty pattern
    when nothing is left)."""

    def rebuild(node: Node, path: Path) -> Node | None:
        if path in edit.deleted:
            out: Node | None = None
        elif path in edit.replaced:
            out = edit.replaced[path]
        else:
            out = rebuild_children(node, path)
        if path in edit.wrapped:
            before, after = edit.wrapped[path]
            out = _concat(before + ([out] if out is not None else []) + after)
        return out

    def rebuild_children(node: Node, path: Path) -> Node | None:
        kids = children(node)
        if not kids and not edit.inserted.get(path):
            return node
        extra = sorted(edit.inserted.get(path, []), key=lambda x: x[0])
        new: list[Node] = []
        for k, child in enumerate(kids):
            new.extend(n for i, n in extra if i == k)
            built = rebuild(child, path + (k,))
            if built is not None:
                new.append(built)
        new.extend(n for i, n in extra if i >= len(kids))
        if isinstance(node, Concat):
            return _concat(new)
        if isinstance(node, (Alt, Permute)):
            if not new:
                return None
            if len(new) == 1:
                return new[0]
            return Alt(tuple(new)) if isinstance(node, Alt) else Permute(tuple(new))
        if not new:  # a quantifier or an exclusion with nothing left in it
            return None
        return replace(node, body=new[0] if len(new) == 1 else Concat(tuple(new)))

    out = rebuild(strip_offsets(root), ())
    return out if out is not None else Concat(())


def edit_pattern(text: str, edit: TreeEdit) -> tuple[str, Node]:
    """The text with the edited pattern (the same text when the edit changes nothing)."""
    query = parse_text(text)
    node = apply_tree(query.pattern, edit)
    return replace_pattern(text, node), node


# --------------------------------------------------------------------------- DEFINE

def set_define(text: str, variable: str, condition: str) -> str:
    """The query with ``DEFINE variable AS condition`` (the item changed, or added at the end of
    DEFINE, or a DEFINE clause added). A condition that does not parse raises an
    :class:`EditError` whose caret points into the condition."""
    condition = condition.strip()
    if not condition:
        raise EditError(f"the condition of {variable} is empty; write e.g. `price > PREV(price)`")
    query = parse_text(text)
    where = spans(text, query)
    if variable in where.defines:
        _name, start, end = where.defines[variable]
        if query.defines[variable].text.strip() == condition:
            return text
        new = text[:start] + condition + text[end:]
        at = start
    elif where.defines:
        last = max(where.defines.values(), key=lambda v: v[2])
        name_start = last[0]
        line_start = text.rfind("\n", 0, name_start) + 1
        multi_line = len(where.defines) > 1 and any(
            "\n" in text[a[2]:b[0]] for a, b in zip(sorted(where.defines.values()), sorted(where.defines.values())[1:]))
        prefix = f",\n{' ' * (name_start - line_start)}" if multi_line else ", "
        insert = f"{prefix}{render(Var(variable))} AS "
        at = last[2] + len(insert)
        new = text[:last[2]] + insert + condition + text[last[2]:]
    else:
        anchor = where.last_clause_end
        pattern_line = text.rfind("\n", 0, where.pattern[0]) + 1
        indent = re.match(r"[ \t]*", text[pattern_line:]).group(0)  # type: ignore[union-attr]
        on_own_line = text[pattern_line:where.pattern[0]].strip().upper().startswith("PATTERN")
        insert = (f"\n{indent}" if on_own_line else " ") + f"DEFINE {render(Var(variable))} AS "
        at = anchor + len(insert)
        new = text[:anchor] + insert + condition + text[anchor:]
    try:
        parse_query(new)
    except SqlError as err:
        offset = _offset(new, err)
        if offset is not None and at <= offset <= at + len(condition):
            inner = error_at(condition, offset - at, err.message, err.hint, err.span[2] if err.span else 1)
            raise EditError(inner.message + (f" ({inner.hint})" if inner.hint else ""), str(inner)) from None
        raise _from_sql_error(f"the DEFINE of {variable} does not fit the query", err) from None
    return new


def _offset(source: str, err: SqlError) -> int | None:
    if not err.span:
        return None
    line, column = err.span[0], err.span[1]
    lines = source.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + column - 1


def remove_define(text: str, variable: str) -> str:
    """The query without ``variable``'s DEFINE item (and without DEFINE when it was the only one)."""
    query = parse_text(text)
    where = spans(text, query)
    if variable not in where.defines:
        return text
    items = sorted(where.defines.values())
    name, _start, end = where.defines[variable]
    k = items.index(where.defines[variable])
    if len(items) == 1:
        assert where.defines is not None and where.define_keyword is not None
        cut_from = _end_of_token_before(text, where.define_keyword)
        return text[:cut_from] + text[end:]
    if k == 0:
        return text[:name] + text[items[1][0]:]
    return text[:items[k - 1][2]] + text[end:]


def _end_of_token_before(text: str, offset: int) -> int:
    tokens = [t for t in tokenize(text) if t.end <= offset]
    return tokens[-1].end if tokens else offset


def references(text: str, variable: str) -> list[Token]:
    """The tokens outside PATTERN that name ``variable``: qualified column references and
    navigation (``B.price``, ``LAST(B.ts)``, ``count(B.*)``), the DEFINE item's name, SUBSET members
    and ``AFTER MATCH SKIP TO B``."""
    query = parse_text(text)
    where = spans(text, query)
    tokens = tokenize(text)
    k = next(i for i, t in enumerate(tokens) if t.is_word("MATCH_RECOGNIZE"))
    found: list[Token] = []
    clause = None
    depth = 0
    for i in range(k + 1, len(tokens)):
        t = tokens[i]
        if t.start >= where.body_close:
            break
        if where.pattern[0] <= t.start < where.pattern[1]:
            continue
        if t.is_symbol("("):
            depth += 1
        elif t.is_symbol(")"):
            depth -= 1
        if depth == 1 and t.kind == "word" and t.upper in ("PARTITION", "ORDER", "MEASURES", "ONE", "ALL", "AFTER",
                                                           "PATTERN", "WITHIN", "SUBSET", "DEFINE"):
            clause = t.upper
        if t.kind not in ("word", "quoted") or variable_name(t) != variable:
            continue
        if tokens[i + 1].is_symbol(".") and not tokens[i - 1].is_symbol("."):
            found.append(t)
        elif clause == "DEFINE" and tokens[i + 1].is_word("AS") and (
                tokens[i - 1].is_word("DEFINE") or tokens[i - 1].is_symbol(",")):
            found.append(t)
        elif clause == "SUBSET" and depth == 2:
            found.append(t)
        elif clause == "AFTER" and tokens[i - 1].is_word("TO", "FIRST", "LAST") and query.after_match[1] == variable:
            found.append(t)
    return found


def rename_variable(text: str, old: str, new: str) -> str:
    """Every place outside PATTERN that names the variable ``old`` (:func:`references`) names ``new``."""
    if old == new:
        return text
    written = render(Var(new))
    for t in sorted(references(text, old), key=lambda t: -t.start):
        text = text[:t.start] + written + text[t.end:]
    return text


# --------------------------------------------------------------------------- node content

def _paragraphs(content: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n[ \t]*\n", content.strip()) if p.strip()]


def read_content(content: str) -> tuple[str, list[str]]:
    """(the label, the paragraphs after it) of a node's markdown as a person left it."""
    lines = content.splitlines()
    first = lines[0].strip() if lines else ""
    label = unescape_markdown(first).strip()
    if label.startswith("**") and label.endswith("**") and len(label) > 4:
        label = label[2:-2].strip()
    return label, _paragraphs("\n".join(lines[1:]))


def unfence(text: str) -> str:
    """The text of a code span (``\\`a > 1\\```` -> ``a > 1``), else the text as written."""
    m = re.fullmatch(r"(`+)(.*?)\1", text.strip(), flags=re.S)
    if not m:
        return text.strip()
    inner = m.group(2)
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip():
        inner = inner[1:-1]
    return inner.replace("\u2060", "")


_WORDS = re.compile(r"_[^_`]*_")  # a paragraph in italics: the words under a label, as drawn or retouched


def condition_in(paragraphs: list[str], drawn: list[str]) -> str | None:
    """The DEFINE condition a person wrote on a node (None: unchanged or none): the paragraphs
    that are neither the words drawn nor the no-DEFINE line."""
    rest = [p for p in paragraphs if p not in drawn and p != NO_DEFINE and not _WORDS.fullmatch(p)]
    if not rest:
        return None
    return unfence(" ".join(rest))


# --------------------------------------------------------------------------- canvas -> text

@dataclass
class CanvasResult:
    text: str
    notes: list[str] = field(default_factory=list)
    changed: bool = False


def _absolute(node_id: str, by_id: dict[str, dict[str, Any]]) -> tuple[float, float]:
    x = y = 0.0
    seen: set[str] = set()
    cur: dict[str, Any] | None = by_id.get(node_id)
    while cur is not None and cur.get("id") not in seen:
        seen.add(cur.get("id"))
        pos = cur.get("position") or {}
        x += float(pos.get("x", 0) or 0)
        y += float(pos.get("y", 0) or 0)
        parent = cur.get("parentId")
        cur = by_id.get(parent) if parent else None
    return x, y


def _px(value: Any, default: float) -> float:
    try:
        return float(str(value).replace("px", ""))
    except (TypeError, ValueError):
        return default


def _place_new(root: Node, drawn: dict[str, dict[str, Any]], by_id: dict[str, dict[str, Any]],
               node: dict[str, Any], term: Node, edit: TreeEdit) -> None:
    """Put a node a person created where it was dropped: in the innermost box around its centre
    (else the top level), after the members left of it (above it, in a box of options)."""
    from visualizers.sql_canvas import NODE_H, NODE_W

    pos = node.get("position") or {}
    cx, cy = float(pos.get("x", 0) or 0) + NODE_W / 2, float(pos.get("y", 0) or 0) + NODE_H / 2
    best: tuple[int, Path] | None = None
    for nid, d in drawn.items():
        parsed = parse_id(nid)
        if parsed is None or parsed[0] != "g" or nid not in by_id:
            continue
        bx, by = _absolute(nid, by_id)
        style = by_id[nid].get("style") or {}
        w, h = _px(style.get("width"), 300), _px(style.get("height"), 120)
        if bx <= cx <= bx + w and by <= cy <= by + h and (best is None or len(parsed[1]) >= best[0]):
            best = (len(parsed[1]), parsed[1])
    if best is None:
        if isinstance(root, Concat):
            items = [(p, (k,)) for k, p in enumerate(root.parts)]
            index = _index(items, "row", cx, cy, by_id)
            edit.insert((), index, term)
        else:
            x, _y = _absolute(("t:r" if is_term(root) else "g:r"), by_id)
            edit.wrap((), term, after=cx >= x + NODE_W / 2)
        return
    path = best[1]
    box = node_at(root, path)
    direction, items = members(box, path)
    container = container_of(box, path)
    if container == path and isinstance(box, (Quantified, Exclusion)):  # one member: wrap it
        only_path = items[0][1]
        x, _y = _absolute(_drawn_id(items[0][0], only_path), by_id)
        edit.wrap(only_path, term, after=cx >= x + NODE_W / 2)
        return
    edit.insert(container, _index(items, direction, cx, cy, by_id), term)


def _drawn_id(node: Node, path: Path) -> str:
    from visualizers.sql_canvas import box_id, term_id

    return term_id(path) if is_term(node) else box_id(path)


def _index(items: list[tuple[Node, Path]], direction: str, cx: float, cy: float,
           by_id: dict[str, dict[str, Any]]) -> int:
    """How many members come before a point: in a row, those of the rows (a long row wraps) above
    the one nearest the point and those left of it in that row; in a column, those above it."""
    boxes: list[tuple[int, float, float, float]] = []  # member index, centre x, top y, centre y
    for k, (child, path) in enumerate(items):
        nid = _drawn_id(child, path)
        if nid not in by_id:
            continue
        x, y = _absolute(nid, by_id)
        style = by_id[nid].get("style") or {}
        w = _px(style.get("width"), 170)
        h = _px(style.get("height"), _px((by_id[nid].get("data") or {}).get("h"), 62))
        boxes.append((k, x + w / 2, y, y + h / 2))
    if not boxes:
        return 0 if cx < 0 else len(items)
    if direction == "column":
        return max((k + 1 for k, _x, _top, y in boxes if y < cy), default=0)
    rows: dict[int, list[tuple[int, float, float, float]]] = {}
    for b in boxes:
        rows.setdefault(round(b[3] / 40), []).append(b)  # a row shares its centre line
    nearest = min(rows.values(), key=lambda row: abs(sum(b[3] for b in row) / len(row) - cy))
    before = [b for b in nearest if b[1] < cx]
    if before:
        return max(b[0] for b in before) + 1
    return min(b[0] for b in nearest)


def apply_canvas(text: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None) -> CanvasResult:
    """Read a canvas returned by the browser back into the query text.

    * a term node that is gone deletes that term (and the variable's DEFINE when the variable no
      longer appears in the pattern);
    * a term whose label changed is replaced by the label read as a row-pattern term (a new
      quantifier, or a new name: when the old variable appears nowhere else it is renamed
      everywhere, else only this place names the new one);
    * a term whose DEFINE paragraph changed sets that variable's DEFINE;
    * a box whose header changed takes the quantifier written after its symbol (``( | )+`` ->
      ``( | )*?``; the symbol alone removes it);
    * a node with an id the canvas did not draw is a new term (its first line the label, the rest
      its DEFINE), put where it was dropped (see :func:`_place_new`).
    Raises :class:`EditError`."""
    query = parse_text(text)
    drawn_nodes, _ = query_to_canvas(query)
    drawn = {n["id"]: n for n in drawn_nodes}
    by_id = {str(n.get("id")): n for n in nodes}
    root = strip_offsets(query.pattern)
    edit = TreeEdit()
    notes: list[str] = []
    defines: dict[str, str] = {}
    renames: list[tuple[str, str]] = []
    for nid, d in drawn.items():
        parsed = parse_id(nid)
        if parsed is None or parsed[0] != "t":
            continue
        path = parsed[1]
        if nid not in by_id:
            edit.deleted.add(path)
            notes.append(f"deleted `{d['data']['term']}`")
            continue
        content = str((by_id[nid].get("data") or {}).get("content") or "")
        if content == d["data"]["content"]:
            continue
        label, paragraphs = read_content(content)
        old_var = d["data"]["var"]
        drawn_paragraphs = _paragraphs(d["data"]["content"])[1:]
        condition = condition_in(paragraphs, drawn_paragraphs)
        if condition is not None and old_var is not None and condition != (d["data"]["define"] or ""):
            defines[old_var] = condition
            notes.append(f"DEFINE {old_var} AS {condition}")
        if label != d["data"]["term"]:
            term = parse_label(label)
            if render(term) != d["data"]["term"]:
                edit.replaced[path] = term
                notes.append(f"`{d['data']['term']}` is now `{render(term)}`")
                new_vars = variables(term)
                if old_var is not None and len(new_vars) == 1 and new_vars[0] != old_var:
                    renames.append((old_var, new_vars[0]))
    for nid, d in drawn.items():  # a box's header edited: its quantifier
        parsed = parse_id(nid)
        if parsed is None or parsed[0] != "g" or nid not in by_id:
            continue
        content = str((by_id[nid].get("data") or {}).get("content") or "")
        if content != d["data"]["content"]:
            box = node_at(root, parsed[1])
            new_box = requantify(box, read_content(content)[0])
            if new_box != box:
                edit.replaced[parsed[1]] = new_box
                notes.append(f"`{box_symbol(box)}` is now `{box_symbol(new_box)}`")
    for n in nodes:
        nid = str(n.get("id"))
        if nid in drawn or parse_id(nid) is not None:
            continue
        label, paragraphs = read_content(str((n.get("data") or {}).get("content") or ""))
        term = parse_label(label)
        _place_new(root, drawn, by_id, n, term, edit)
        notes.append(f"added `{render(term)}`")
        condition = condition_in(paragraphs, [])
        new_vars = variables(term)
        if condition is not None and len(new_vars) == 1:
            defines[new_vars[0]] = condition
    if edit.empty() and not defines:
        return CanvasResult(text)
    new_text = text
    for var, condition in defines.items():
        new_text = set_define(new_text, var, condition)
    before = set(variables(root))
    new_text, new_root = edit_pattern(new_text, edit)
    after = set(variables(new_root))
    for old, new in renames:
        if new in before:
            notes.append(f"{render(Var(new))} was already a variable: this place now uses its DEFINE")
        elif old in after:
            notes.append(f"{render(Var(old))} appears elsewhere too: only this place is now {render(Var(new))}, "
                         "which has no DEFINE yet (every row qualifies)")
        else:
            new_text = rename_variable(new_text, old, new)
            notes.append(f"renamed {render(Var(old))} to {render(Var(new))} in DEFINE, MEASURES, SUBSET "
                         "and AFTER MATCH SKIP")
            before.discard(old)
    for gone in sorted(before - after):
        if gone in parse_text(new_text).defines:
            new_text = remove_define(new_text, gone)
            notes.append(f"removed the DEFINE of {render(Var(gone))} (it is no longer in the pattern)")
        if references(new_text, gone):
            notes.append(f"{render(Var(gone))} is no longer in the pattern but MEASURES, SUBSET or AFTER MATCH SKIP "
                         "still name it: change them in the editor")
    try:
        parse_query(new_text)
    except SqlError as err:
        raise _from_sql_error("the edit gives a query that does not parse", err) from None
    return CanvasResult(new_text, notes, new_text != text)


def _symbol_text(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("...", "…"))


def requantify(box: Node, header: str) -> Node:
    """A box with the quantifier its edited header gives (``( | )*?``; no quantifier: none)."""
    symbol = header.split("·")[0].strip()
    if symbol.startswith("**") and symbol.endswith("**") and len(symbol) > 4:
        symbol = symbol[2:-2]
    body = box.body if isinstance(box, Quantified) else box
    base = box_symbol(body) if not is_term(body) else "( … )"
    written, expected = _symbol_text(symbol), _symbol_text(base)
    if not written.startswith(expected):
        raise EditError(f"the header `{symbol}` does not start with `{base}`: a box's header is its symbol with a "
                        f"quantifier, e.g. `{base}+`; edit its members on their own nodes")
    suffix = written[len(expected):]
    if not suffix:
        return body
    quantified = parse_label("X" + suffix)
    if not (isinstance(quantified, Quantified) and quantified.body == Var("X")):
        raise EditError(f"`{suffix}` is not a quantifier: write *, +, ?, {{n}}, {{n,}}, {{,m}} or {{n,m}}, "
                        "then ? for the fewest rows first")
    return Quantified(body, quantified.min, quantified.max, quantified.greedy)


# --------------------------------------------------------------------------- forms beside the canvas

def occurrences(text: str) -> list[tuple[Path, str]]:
    """Every term of the pattern with its path and label, left to right (for an "after" picker)."""
    root = strip_offsets(parse_text(text).pattern)
    out: list[tuple[Path, str]] = []

    def walk(node: Node, path: Path) -> None:
        if is_term(node):
            out.append((path, render(node)))
            return
        for k, child in enumerate(children(node)):
            walk(child, path + (k,))

    if not (isinstance(root, Concat) and not root.parts):
        walk(root, ())
    return out


def add_term(text: str, label: str, after: Path | None = None, condition: str = "") -> str:
    """The query with a new term (``label``, read as a row-pattern term) right after the term at
    ``after`` (in its sequence; a term that is an option or the only member of a group becomes a
    sequence with the new one), or at the end of the pattern; ``condition``, when given, becomes
    the new variable's DEFINE."""
    query = parse_text(text)
    root = strip_offsets(query.pattern)
    term = parse_label(label)
    edit = TreeEdit()
    if after is None:
        if isinstance(root, Concat):
            edit.insert((), len(root.parts), term)
        else:
            edit.wrap((), term, after=True)
    else:
        try:
            node_at(root, after)
        except (IndexError, TypeError):
            raise EditError("that term is no longer in the pattern") from None
        parent = after[:-1]
        if after and isinstance(node_at(root, parent), Concat):
            edit.insert(parent, after[-1] + 1, term)
        else:
            edit.wrap(after, term, after=True)
    new_text, _ = edit_pattern(text, edit)
    new_vars = variables(term)
    if condition.strip() and len(new_vars) == 1:
        new_text = set_define(new_text, new_vars[0], condition)
    return new_text
