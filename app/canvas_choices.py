"""What the canvas dialog asks, turned into a pattern: pure functions, no streamlit.

The Design page's canvas dialog (:mod:`app.canvas_dialog`) creates or edits one component: its
event type, variable, quantifier, negation, where it goes (a group and the item it follows) and
its predicates (removed ones, new ones). :func:`apply_choices` makes the new pattern from those
choices with the edit functions of :mod:`app.edit`; the result is validated by
``app.state.commit`` like every other edit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.edit import (EditError, _dump, _load, _prune, add_component, add_predicate, delete_component,
                      predicate_text, remove_predicate, update_component)
from engine.dsl import item_text
from engine.expr import to_text as expr_text
from engine.expr import variables
from engine.model import Component, Group, Pattern

START = "(start)"  # "after" value: the first place of the group

QUANTIFIERS = {
    "one": "one event",
    "plus": "one or more (+)",
    "star": "zero or more (*)",
    "opt": "optional (?)",
}
OPERATORS = ["=", "!=", "<", "<=", ">", ">="]
# which element of a Kleene component a predicate speaks of
ELEMENTS = {
    "each": "every event",
    "i": "the one being added",
    "i-1": "the one before it",
    "1": "the first",
    "last": "the last",
}


@dataclass
class NewPredicate:
    """A predicate built in the dialog; its left side is the component being edited, so it is
    written out only at the end, with the component's final variable name."""

    attr: str
    op: str
    value: str = ""                 # a number or a text (used when other_var is None)
    other_var: str | None = None    # compare with another component's attribute
    other_attr: str = ""
    element: str = "each"           # for a Kleene component: which of its events

    def text(self, var: str, kleene: bool) -> str:
        left = predicate_text(var, self.element if kleene else None, self.attr, kleene)
        if self.other_var is not None:
            right = f"{self.other_var}.{self.other_attr}"
        else:
            right = literal(self.value) if self.value.strip() else "…"  # not written yet
        return f"{left} {self.op} {right}"


@dataclass
class Choices:
    """Everything the dialog asks. ``original`` is the variable being edited (None: a new one);
    ``group`` the path of the group it goes in; ``after`` the item it follows there (``c:<var>``
    or ``g:<path>`` as on the canvas, :data:`START` for the first place, None: where it is now,
    or at the end for a new component)."""

    type: str
    var: str
    quant: str = "one"
    negated: bool = False
    original: str | None = None
    group: tuple[int, ...] = ()
    after: str | None = None
    remove: list[int] = field(default_factory=list)       # indices into pattern.where
    add: list[NewPredicate] = field(default_factory=list)


def literal(value: str) -> str:
    """A number as it is (integers stay integers), anything else as a quoted text."""
    v = value.strip()
    try:
        float(v)
        if v.lower() not in ("nan", "inf", "-inf", "infinity", "-infinity", "+inf"):
            return v.lstrip("+") if v.startswith("+") else v
    except ValueError:
        pass
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def predicates_of(p: Pattern, var: str) -> list[tuple[int, str]]:
    """The WHERE conjuncts that use ``var`` (its own ones and those shared with others)."""
    return [(k, expr_text(e)) for k, e in enumerate(p.where) if var in variables(e)]


def item_key(item: Component | Group, path: tuple[int, ...]) -> str:
    from visualizers.canvas import item_id

    return item_id(item, path)


def places(p: Pattern, group: tuple[int, ...], skip: str | None = None) -> list[tuple[str, str]]:
    """The items of a group a component can follow: ``(key, text)``, :data:`START` first;
    ``skip`` (the component being edited) is left out."""
    from visualizers.canvas import item_at

    g = item_at(p.root, group)
    if not isinstance(g, Group):
        raise EditError("that is not a group")
    out = [(START, "nothing: first")]
    for k, it in enumerate(g.items):
        if isinstance(it, Component) and it.var == skip:
            continue
        out.append((item_key(it, group + (k,)), item_text(it)))
    return out


def location(p: Pattern, var: str) -> tuple[tuple[int, ...], str]:
    """The group a component is in and the item before it (:data:`START` when first)."""
    from visualizers.canvas import iter_items

    for path, it in iter_items(p.root):
        if isinstance(it, Component) and it.var == var:
            group, k = path[:-1], path[-1]
            if k == 0:
                return group, START
            from visualizers.canvas import item_at

            g = item_at(p.root, group)
            assert isinstance(g, Group)
            return group, item_key(g.items[k - 1], group + (k - 1,))
    raise EditError(f"no component {var}")


def _move(p: Pattern, var: str, group: tuple[int, ...], after: str) -> Pattern:
    """Move component ``var`` into ``group``, after the item ``after`` (keys of the pattern as it is)."""
    from visualizers.canvas import component_id, group_id

    d = _dump(p)

    def walk(g: dict[str, Any], path: tuple[int, ...]) -> dict[str, Any] | None:
        if path == group:
            return g
        for k, it in enumerate(g["items"]):
            if it["kind"] == "group":
                r = walk(it, path + (k,))
                if r is not None:
                    return r
        return None

    target = walk(d["root"], ())
    if target is None:
        raise EditError("that group is no longer in the pattern")
    anchor = None
    if after != START:
        for k, it in enumerate(target["items"]):
            key = component_id(it["var"]) if it["kind"] == "component" else group_id(group + (k,))
            if key == after:
                anchor = it
        if anchor is None:
            raise EditError("the component to follow is no longer in that group")

    def take(g: dict[str, Any]) -> dict[str, Any] | None:
        for k, it in enumerate(g["items"]):
            if it["kind"] == "component" and it["var"] == var:
                return g["items"].pop(k)
            if it["kind"] == "group":
                r = take(it)
                if r is not None:
                    return r
        return None

    moved = take(d["root"])
    if moved is None:
        raise EditError(f"no component {var}")
    index = 0 if anchor is None else next(k for k, it in enumerate(target["items"]) if it is anchor) + 1
    target["items"].insert(index, moved)
    root = _prune(d["root"])
    assert root is not None  # the moved component is in it
    d["root"] = root
    return _load(d)


def apply_choices(p: Pattern, c: Choices) -> tuple[Pattern, list[str]]:
    """The pattern with the dialog's choices applied, and what was done (for the page's notes).
    Raises :class:`EditError` (or a ``DslError`` from a predicate's text)."""
    kind = c.type.strip()
    var = c.var.strip()
    if not kind:
        raise EditError("choose the event type of the component")
    if not var:
        raise EditError("give the component a variable name, e.g. b")
    comp = Component(type=kind, var=var, quant=c.quant, negated=c.negated)
    notes: list[str] = []
    if c.original is None:
        q = add_component(p, comp, c.group, _index_after(p, c.group, c.after))
        notes.append(f"added {item_text(comp)}")
    else:
        q = p
        for k in sorted(set(c.remove), reverse=True):
            if 0 <= k < len(q.where):
                notes.append(f"removed the predicate {expr_text(q.where[k])}")
                q = remove_predicate(q, k)
        before = p.component(c.original)
        q = update_component(q, c.original, comp)
        if c.after is not None:
            q = _move(q, var, c.group, c.after)
        if before != comp:
            notes.append(f"changed {item_text(before)} to {item_text(comp)}")
    for new in c.add:
        text = new.text(var, comp.kleene)
        q = add_predicate(q, text)
        notes.append(f"added the predicate {text}")
    return q, notes


def _index_after(p: Pattern, group: tuple[int, ...], after: str | None) -> int | None:
    """The index in ``group`` of the place after the item ``after`` (None: the end)."""
    if after is None:
        return None
    keys = [k for k, _ in places(p, group)]
    if after not in keys:
        raise EditError("the component to follow is no longer in that group")
    return keys.index(after)  # START is at 0, the k-th item at k + 1


def delete(p: Pattern, var: str) -> tuple[Pattern, list[str]]:
    """Delete a component; the notes say what went with it (predicates, RETURN items, ...)."""
    q, dropped = delete_component(p, var)
    return q, [f"deleted {item_text(p.component(var))}", *dropped]
