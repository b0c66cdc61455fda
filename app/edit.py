"""Pattern edits for the Design page: pure functions ``Pattern -> Pattern``.

The designer's forms and canvas change the one ``Pattern`` in session state through
these functions; the result is validated by ``app.state.commit`` (DSL round trip and
``Pattern.check``), so an edit here may produce an invalid pattern and the person then
sees why. Nothing here imports streamlit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.dsl import DslError, check_schema, item_text, parse, parse_expr, to_text
from engine.expr import variables
from engine.model import Component, Group, Pattern, PatternError, Strategy, Window
from visualizers.canvas import component_id, parse_group_id

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class EditError(ValueError):
    """An edit that cannot be applied; the message is for a person."""


# --------------------------------------------------------------------------- helpers

def _dump(p: Pattern) -> dict[str, Any]:
    return p.model_dump()


def _load(d: dict[str, Any]) -> Pattern:
    return Pattern.model_validate(d)


def fresh_var(taken: set[str] | list[str], type_name: str = "") -> str:
    """The first free name among a, b, c, ... (then v1, v2, ...)."""
    taken = set(taken)
    for ch in "abcdefghijklmnopqrstuvwxyz":
        if ch not in taken:
            return ch
    k = 1
    while f"v{k}" in taken:
        k += 1
    return f"v{k}"


def parse_component_text(text: str) -> tuple[Component, bool]:
    """``Stock+ a[]``, ``!Register b``, ``Stock`` ... -> (component, var_given).

    Reads the first non-empty line (node content may have more lines); markdown
    backslash escapes (``visualizers.escape.markdown``), backticks and surrounding ``**``
    are ignored."""
    from visualizers.escape import unescape_markdown

    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = unescape_markdown(line).replace("`", "").strip()
    if line.startswith("**") and line.endswith("**") and len(line) > 4:
        line = line[2:-2].strip()
    if not line:
        raise EditError("the node is empty; write a component such as `Stock b` or `Stock+ a[]`")
    try:
        p = parse(f"PATTERN SEQ({line})", check=False)
    except DslError as err:
        raise EditError(f"cannot read `{line}` as a component: {err.message}"
                        + (f" ({err.hint})" if err.hint else "")) from None
    items = p.root.items
    if len(items) != 1 or not isinstance(items[0], Component) or p.where or p.window:
        raise EditError(f"`{line}` is not one component; write e.g. `Stock b`, `Stock+ a[]` or `!Register r`")
    c = items[0].model_copy(update={"span": None})
    names = _NAME.findall(line)
    return c, len(names) >= 2


def _rename_in(obj: Any, old: str, new: str) -> Any:
    if isinstance(obj, dict):
        return {k: (new if k == "var" and v == old else _rename_in(v, old, new)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rename_in(v, old, new) for v in obj]
    return obj


def rename_var(p: Pattern, old: str, new: str) -> Pattern:
    """Rename a variable everywhere: its component, predicates, aggregate, RETURN."""
    if old == new:
        return p
    return _load(_rename_in(_dump(p), old, new))


def drop_uses(p: Pattern, gone: set[str]) -> tuple[Pattern, list[str]]:
    """Remove predicates, aggregate and RETURN items that use a removed variable."""
    if not gone:
        return p, []
    notes: list[str] = []
    where = []
    for e in p.where:
        if variables(e) & gone:
            from engine.expr import to_text as expr_text

            notes.append(f"removed the predicate `{expr_text(e)}` (it used {', '.join(sorted(variables(e) & gone))})")
        else:
            where.append(e)
    upd: dict[str, Any] = {"where": where}
    if p.aggregate is not None and p.aggregate.var in gone:
        upd["aggregate"] = p.aggregate.model_copy(update={"var": None, "attr": None, "func": "COUNT"})
        notes.append("the aggregate used a removed variable; it is now COUNT")
    rets = [r for r in p.returns if not (r.var in gone or (r.expr is not None and variables(r.expr) & gone))]
    if len(rets) != len(p.returns):
        notes.append("removed RETURN items that used a removed variable")
    upd["returns"] = rets
    return p.model_copy(update=upd), notes


def _prune(g: dict[str, Any]) -> dict[str, Any] | None:
    """Drop empty groups (bottom-up); None if ``g`` itself is empty."""
    items = []
    for it in g["items"]:
        if it["kind"] == "group":
            it = _prune(it)
            if it is None:
                continue
        items.append(it)
    if not items:
        return None
    return {**g, "items": items}


def _group_dict(d: dict[str, Any], path: tuple[int, ...]) -> dict[str, Any]:
    cur = d["root"]
    for k in path:
        cur = cur["items"][k]
    if cur.get("kind") != "group":
        raise EditError("that is not a group")
    return cur


# --------------------------------------------------------------------------- component edits

def new_pattern(type_name: str = "A") -> Pattern:
    """The smallest pattern: ``PATTERN SEQ(<type> a)`` (to build up from)."""
    return Pattern(root=Group(op="SEQ", items=[Component(type=type_name, var="a")]))


def add_component(p: Pattern, comp: Component, group: tuple[int, ...] = (), index: int | None = None) -> Pattern:
    if comp.var in p.variables:
        raise EditError(f"variable `{comp.var}` is already used; pick another name")
    d = _dump(p)
    g = _group_dict(d, group)
    c = comp.model_dump()
    if index is None or index >= len(g["items"]):
        g["items"].append(c)
    else:
        g["items"].insert(max(0, index), c)
    return _load(d)


def _find(d: dict[str, Any], var: str) -> tuple[list[Any], int]:
    def walk(g: dict[str, Any]) -> tuple[list[Any], int] | None:
        for k, it in enumerate(g["items"]):
            if it["kind"] == "component" and it["var"] == var:
                return g["items"], k
            if it["kind"] == "group":
                r = walk(it)
                if r:
                    return r
        return None

    r = walk(d["root"])
    if r is None:
        raise EditError(f"no component `{var}`")
    return r


def update_component(p: Pattern, var: str, comp: Component) -> Pattern:
    """Replace component ``var`` (type, quantifier, negation; a new variable name renames it
    in every predicate too)."""
    if comp.var != var and comp.var in p.variables:
        raise EditError(f"variable `{comp.var}` is already used; pick another name")
    d = _dump(p)
    items, k = _find(d, var)
    items[k] = comp.model_copy(update={"var": var}).model_dump()
    return rename_var(_load(d), var, comp.var)


def delete_component(p: Pattern, var: str) -> tuple[Pattern, list[str]]:
    d = _dump(p)
    items, k = _find(d, var)
    del items[k]
    root = _prune(d["root"])
    if root is None:
        raise EditError("a pattern needs at least one component")
    d["root"] = root
    return drop_uses(_load(d), {var})


def move_item(p: Pattern, path: tuple[int, ...], delta: int) -> Pattern:
    """Move the item at ``path`` ``delta`` places within its group."""
    d = _dump(p)
    g = _group_dict(d, path[:-1])
    k = path[-1]
    j = max(0, min(len(g["items"]) - 1, k + delta))
    if j != k:
        g["items"].insert(j, g["items"].pop(k))
    return _load(d)


def wrap_items(p: Pattern, group: tuple[int, ...], indices: list[int], op: str) -> Pattern:
    """Put the items ``indices`` of a group into a new ``op`` group at the first one's place."""
    if len(indices) < 2:
        raise EditError("choose at least two items to group")
    d = _dump(p)
    g = _group_dict(d, group)
    idx = sorted(set(indices))
    new = {"kind": "group", "op": op, "items": [g["items"][i] for i in idx]}
    rest = [it for i, it in enumerate(g["items"]) if i not in idx]
    rest.insert(idx[0], new)
    g["items"] = rest
    return _load(d)


def ungroup(p: Pattern, path: tuple[int, ...]) -> Pattern:
    """Replace the group at ``path`` by its items (the root cannot be ungrouped)."""
    if not path:
        raise EditError("the top-level group cannot be removed; change its operator instead")
    d = _dump(p)
    parent = _group_dict(d, path[:-1])
    k = path[-1]
    inner = parent["items"][k]
    if inner["kind"] != "group":
        raise EditError("that is not a group")
    parent["items"][k:k + 1] = inner["items"]
    return _load(d)


def set_group_op(p: Pattern, path: tuple[int, ...], op: str) -> Pattern:
    d = _dump(p)
    _group_dict(d, path)["op"] = op
    return _load(d)


def groups(p: Pattern) -> list[tuple[tuple[int, ...], str]]:
    """Every group with a label, the root first: [((), 'SEQ (top level)'), ((1,), 'AND(C c, P+ p[])')]."""
    out: list[tuple[tuple[int, ...], str]] = [((), f"{p.root.op} (top level)")]

    def walk(g: Group, path: tuple[int, ...]) -> None:
        for k, it in enumerate(g.items):
            if isinstance(it, Group):
                out.append((path + (k,), item_text(it)))
                walk(it, path + (k,))

    walk(p.root, ())
    return out


# --------------------------------------------------------------------------- WHERE and clauses

def add_predicate(p: Pattern, text: str) -> Pattern:
    """Append a WHERE conjunct given as text (``a[1].volume > 1000``). Syntax errors raise
    ``DslError`` located in ``text``; the semantic check happens at commit."""
    e = parse_expr(text)
    return p.model_copy(update={"where": [*p.where, e]})


def remove_predicate(p: Pattern, index: int) -> Pattern:
    where = [e for k, e in enumerate(p.where) if k != index]
    return p.model_copy(update={"where": where})


def set_equivalence(p: Pattern, attrs: list[str]) -> Pattern:
    return p.model_copy(update={"equivalence": list(attrs)})


def set_strategy(p: Pattern, strategy: str | Strategy) -> Pattern:
    return p.model_copy(update={"strategy": Strategy(strategy)})


def set_window(p: Pattern, value: float | None, unit: str | None) -> Pattern:
    if value is None or value <= 0:
        return p.model_copy(update={"window": None})
    v: float | int = int(value) if float(value).is_integer() else float(value)
    return p.model_copy(update={"window": Window(value=v, unit=unit or None)})


def set_output(p: Pattern, output: str) -> Pattern:
    return p.model_copy(update={"output": output})


AGG_FUNCS = ("COUNT", "SUM", "AVG", "MIN", "MAX")


def set_aggregate(p: Pattern, func: str | None, var: str | None = None, attr: str | None = None,
                  group_by: list[str] | None = None) -> Pattern:
    """``AGG func[(var.attr)]`` and ``GROUP BY``; ``func=None`` removes the clause. COUNT
    takes an argument only when both ``var`` and ``attr`` are given."""
    from engine.model import Aggregate

    if not func:
        return p.model_copy(update={"aggregate": None})
    if func not in AGG_FUNCS:
        raise EditError(f"unknown aggregate `{func}`; use one of {', '.join(AGG_FUNCS)}")
    if func != "COUNT" and not (var and attr):
        raise EditError(f"{func} needs a variable and an attribute, e.g. {func}(b.price)")
    if func == "COUNT" and not (var and attr):
        var = attr = None
    return p.model_copy(update={"aggregate": Aggregate(func=func, var=var, attr=attr,
                                                       group_by=list(group_by or []))})


def add_returns(p: Pattern, text: str) -> tuple[Pattern, str]:
    """Append ``RETURN`` items given as text (``b.price AS price, a``). Returns the new
    pattern and the text its spans refer to (the pattern with a ``RETURN <text>`` line), so
    that an error points into the line the person wrote. Raises ``DslError``."""
    text = text.strip()
    if text.upper().startswith("RETURN "):
        text = text[7:].strip()
    if not text:
        raise EditError("write what to return, e.g. `b.price AS price` or a variable `a`")
    src = to_text(p.model_copy(update={"returns": []})) + f"RETURN {text}\n"
    q = parse(src, check=False)
    return p.model_copy(update={"returns": [*p.returns, *q.returns]}), src


def remove_return(p: Pattern, index: int) -> Pattern:
    return p.model_copy(update={"returns": [r for k, r in enumerate(p.returns) if k != index]})


def return_text(item: Any) -> str:
    from engine.expr import to_text as expr_text

    s = item.var if item.var is not None else expr_text(item.expr)
    return f"{s} AS {item.alias}" if item.alias else s


def predicate_text(var: str, index: str | None, attr: str, kleene: bool) -> str:
    """An operand for the predicate builder: ``a[1].price``, ``b.volume``, ``avg(a[..i-1].price)``,
    ``a.len``."""
    if index in (None, "", "each"):
        return f"{var}.{attr}"
    if index == "len":
        return f"{var}.len"
    if index.startswith("agg:"):
        return f"{index[4:]}({var}[..i-1].{attr})"
    if index.startswith("all:"):
        return f"{index[4:]}({var}[].{attr})"
    return f"{var}[{index}].{attr}"


# --------------------------------------------------------------------------- canvas -> pattern

@dataclass
class CanvasResult:
    pattern: Pattern
    notes: list[str] = field(default_factory=list)
    changed: bool = False


@dataclass
class _Slot:
    id: str
    item: dict[str, Any] | None          # component dict, or None for a group
    op: str | None = None
    children: list["_Slot"] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0
    order: int = 0


def _px(v: Any, default: float) -> float:
    try:
        return float(str(v).replace("px", ""))
    except (TypeError, ValueError):
        return default


def apply_canvas(p: Pattern, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> CanvasResult:
    """Read a canvas returned by the browser back into a pattern.

    * a ``c:<var>`` node that is gone deletes the component (and the predicates using it);
    * a node whose first line changed is re-read as a component (a new variable name is a
      rename everywhere);
    * a node with another id is a new component, put in the innermost group box it was
      dropped in (else the top level), with a fresh variable name when it has none or a taken one;
    * the order of a SEQ is the edges among its items (edges a person drew win over the
      drawn ones when they disagree), ties broken left to right; AND/OR items top to bottom.
    Raises :class:`EditError` for a node that does not read as a component.
    """
    from visualizers.canvas import NODE_H, NODE_W, group_id
    from visualizers.escape import unescape_markdown

    by_id = {n.get("id"): n for n in nodes}
    notes: list[str] = []
    renames: list[tuple[str, str]] = []
    gone: set[str] = set()
    taken = set(p.variables)

    def build(g: Group, path: tuple[int, ...]) -> list[_Slot]:
        out: list[_Slot] = []
        for k, it in enumerate(g.items):
            pp = path + (k,)
            if isinstance(it, Component):
                nid = component_id(it.var)
                node = by_id.get(nid)
                if node is None:
                    gone.add(it.var)
                    continue
                item = it.model_dump()
                content = str(node.get("data", {}).get("content", ""))
                first = next((ln.strip() for ln in content.splitlines() if ln.strip()), "")
                if unescape_markdown(first).replace("`", "") != item_text(it):
                    comp, given = parse_component_text(content)
                    if not given or (comp.var != it.var and comp.var in taken):
                        if given:
                            notes.append(f"variable `{comp.var}` is taken; kept `{it.var}`")
                        comp = comp.model_copy(update={"var": it.var})
                    if comp.var != it.var:
                        renames.append((it.var, comp.var))
                        taken.add(comp.var)
                    item = comp.model_dump()
                pos = node.get("position", {})
                out.append(_Slot(nid, item, x=float(pos.get("x", 0)), y=float(pos.get("y", 0)), order=k))
            else:
                gid = group_id(pp)
                node = by_id.get(gid)
                kids = build(it, pp)
                if node is None:  # group box removed: keep its members in its place
                    for s in kids:
                        s.order = k
                    out.extend(kids)
                    continue
                pos = node.get("position", {})
                out.append(_Slot(gid, None, it.op, kids, float(pos.get("x", 0)), float(pos.get("y", 0)), k))
        return out

    root = _Slot("root", None, p.root.op, build(p.root, ()))

    # absolute boxes of the group nodes, for placing new nodes
    boxes: list[tuple[int, tuple[float, float, float, float], _Slot]] = []

    def collect(slot: _Slot, ox: float, oy: float, depth: int) -> None:
        for s in slot.children:
            if s.item is None:
                node = by_id.get(s.id, {})
                st = node.get("style", {}) or {}
                ax, ay = ox + s.x, oy + s.y
                boxes.append((depth, (ax, ay, _px(st.get("width"), 300), _px(st.get("height"), 120)), s))
                collect(s, ax, ay, depth + 1)

    collect(root, 0.0, 0.0, 0)
    known = {component_id(v) for v in p.variables} | {s.id for _, _, s in boxes}
    for n in nodes:
        nid = n.get("id")
        if nid in known or parse_group_id(str(nid)) is not None:
            continue
        comp, given = parse_component_text(str(n.get("data", {}).get("content", "")))
        if not given or comp.var in taken:
            new = fresh_var(taken, comp.type)
            if given:
                notes.append(f"variable `{comp.var}` is taken; the new component is `{new}`")
            comp = comp.model_copy(update={"var": new})
        taken.add(comp.var)
        pos = n.get("position", {})
        ax, ay = float(pos.get("x", 0)), float(pos.get("y", 0))
        cx, cy = ax + NODE_W / 2, ay + NODE_H / 2
        target, tx, ty = root, 0.0, 0.0
        for depth, (bx, by, bw, bh), s in sorted(boxes, key=lambda b: -b[0]):
            if bx <= cx <= bx + bw and by <= cy <= by + bh:
                target, tx, ty = s, bx, by
                break
        slot = _Slot(str(nid), comp.model_dump(), x=ax - tx, y=ay - ty, order=len(target.children) + 1000)
        target.children.append(slot)
        notes.append(f"added `{item_text(comp)}`")

    # order
    drawn = [e for e in edges if str(e.get("id", "")).startswith("e:")]
    user = [e for e in edges if not str(e.get("id", "")).startswith("e:")]

    def order(slot: _Slot) -> None:
        for s in slot.children:
            if s.item is None:
                order(s)
        kids = slot.children
        if slot.op != "SEQ":
            kids.sort(key=lambda s: (s.y, s.order))
            return
        ids = {s.id for s in kids}
        succ: dict[str, set[str]] = {s.id: set() for s in kids}

        def reaches(a: str, b: str) -> bool:
            stack, seen = [a], set()
            while stack:
                u = stack.pop()
                if u == b:
                    return True
                if u in seen:
                    continue
                seen.add(u)
                stack.extend(succ[u])
            return False

        for e in user + drawn:
            a, b = e.get("source"), e.get("target")
            if a in ids and b in ids and a != b and not reaches(b, a):
                succ[a].add(b)
        indeg = {i: 0 for i in ids}
        for a in succ:
            for b in succ[a]:
                indeg[b] += 1
        key = {s.id: (s.x, s.order) for s in kids}
        ready = sorted((i for i in ids if indeg[i] == 0), key=lambda i: key[i])
        out: list[str] = []
        while ready:
            u = ready.pop(0)
            out.append(u)
            for v in succ[u]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    ready.append(v)
            ready.sort(key=lambda i: key[i])
        pos = {i: k for k, i in enumerate(out)}
        kids.sort(key=lambda s: pos[s.id])

    order(root)

    def to_dict(slot: _Slot) -> dict[str, Any] | None:
        items = []
        for s in slot.children:
            if s.item is not None:
                items.append(s.item)
            else:
                d = to_dict(s)
                if d is not None:
                    items.append(d)
        if not items:
            return None
        return {"kind": "group", "op": slot.op, "items": items}

    rd = to_dict(root)
    if rd is None:
        raise EditError("the canvas is empty; a pattern needs at least one component")
    d = _dump(p)
    d["root"] = rd
    q = _load(d)
    for old, new in renames:
        # the component already carries the new name; rename its uses
        q = _load(_rename_in(_dump(q), old, new))
        notes.append(f"renamed `{old}` to `{new}`")
    q, dropped = drop_uses(q, gone)
    for v in sorted(gone):
        notes.append(f"deleted `{v}`")
    notes.extend(dropped)
    changed = q != p
    return CanvasResult(q, notes if changed else [], changed)


# --------------------------------------------------------------------------- pattern vs data

@dataclass(frozen=True)
class DataProblem:
    """A name in the pattern that the data does not have, as ``cep run`` reports it:
    ``severity`` is ``error`` (the CLI refuses to run) or ``warning`` (it runs and warns);
    ``text`` is the message, with ``line L, column C`` and the caret lines when located."""

    severity: str
    text: str

    @property
    def head(self) -> str:
        return self.text.partition("\n")[0]

    @property
    def detail(self) -> str:
        return self.text.partition("\n")[2]


def data_problems(p: Pattern, schema: dict[str, dict[str, str]], source: str) -> list[DataProblem]:
    """``p`` checked against a data schema with ``engine.dsl.check_schema`` (what ``cep run``
    does before it runs): the error, or the warnings, rendered against ``source`` (the text
    whose spans ``p`` carries) with line, column, caret and the closest known name."""
    if not schema:
        return []
    out: list[DataProblem] = []
    try:
        check_schema(p, schema, source)
    except PatternError as err:  # a DslError: with line, column, caret and suggestion
        out.append(DataProblem("error", str(err)))
    # the warnings (event types), also when an attribute error stopped the check above
    bare = p.model_copy(update={"where": [], "equivalence": [], "returns": [], "aggregate": None})
    out += [DataProblem("warning", w) for w in check_schema(bare, schema, source)]
    return out


def normalise(p: Pattern) -> Pattern:
    """Round trip through the DSL (checks the pattern; raises DslError)."""
    return parse(to_text(p))
