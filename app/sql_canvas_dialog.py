"""The dialog of the SQL row pattern's canvas: add, edit or delete a term (a variable with its
quantifier, and the variable's DEFINE).

A modal of the page (``st.dialog``) opened from the buttons above the canvas or by a click on a
term. The pure functions turn its choices into the query text with :mod:`app.sql_edit` (a term
edited or deleted goes through ``apply_canvas`` exactly as a node changed on the canvas would);
:func:`app.sql_canvas.set_text` then puts the text in the editor.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app.sql_edit import (CanvasResult, EditError, add_term, apply_canvas, occurrences, parse_label, parse_text,
                          remove_define)
from engine.engines.sql.row_pattern import Var, render, variables
from visualizers import escape
from visualizers.sql_canvas import box_id, box_symbol, is_term, node_at, parse_id, query_to_canvas, term_id

Path = tuple[int, ...]
QUANTIFIERS = {
    "": "one row",
    "+": "one or more (+)",
    "*": "zero or more (*)",
    "?": "optional (?)",
    "+?": "one or more, fewest first (+?)",
    "*?": "zero or more, fewest first (*?)",
    "other": "other (write it)",
}
DRAFT = "sql_cd"


# --------------------------------------------------------------------------- pure

def split_label(label: str) -> tuple[str, str]:
    """``B+?`` -> (``B``, ``+?``); a term that is no single variable -> ("", label)."""
    term = parse_label(label)
    names = variables(term)
    if len(names) != 1:
        return "", label
    name = render(Var(names[0]))
    return (names[0], label.strip()[len(name):].strip()) if label.strip().startswith(name) else ("", label)


def make_label(name: str, quantifier: str) -> str:
    """A term's label from a variable name and a quantifier as SQL writes it (checked)."""
    name = name.strip()
    if not name:
        raise EditError("give the term a variable name, e.g. UP")
    label = f"{name}{quantifier.strip()}"
    term = parse_label(label)
    if len(variables(term)) != 1:
        raise EditError(f"`{label}` is not one variable with a quantifier; write e.g. UP+ or DOWN{{2,}}")
    return render(term)


def term_info(text: str, path: Path) -> dict[str, Any]:
    """What the canvas draws for the term at ``path``: its ``term`` (label), ``var`` and ``define``."""
    nodes, _ = query_to_canvas(parse_text(text))
    nid = term_id(path)
    for n in nodes:
        if n["id"] == nid:
            return dict(n["data"])
    raise EditError("that term is no longer in the pattern")


def edit_term(text: str, path: Path, label: str, define: str) -> CanvasResult:
    """The query with the term at ``path`` given a new label and its variable a new DEFINE (an
    empty one removes it: every row qualifies). Read back as the canvas would read the node."""
    query = parse_text(text)
    nodes, edges = query_to_canvas(query)
    nid = term_id(path)
    node = next((n for n in nodes if n["id"] == nid), None)
    if node is None:
        raise EditError("that term is no longer in the pattern")
    old_define = node["data"]["define"]
    paragraphs = node["data"]["content"].split("\n\n")[1:]
    if node["data"]["var"] is not None and define.strip() and define.strip() != (old_define or ""):
        paragraphs = paragraphs[:1] + [escape.code(define.strip())]
    changed = {**node, "data": {**node["data"], "content": "\n\n".join([escape.markdown(label), *paragraphs])}}
    res = apply_canvas(text, [changed if n["id"] == nid else n for n in nodes], edges)
    if old_define is not None and not define.strip():
        names = variables(parse_label(label))
        if len(names) == 1 and names[0] in parse_text(res.text).defines:
            res = CanvasResult(remove_define(res.text, names[0]),
                               [*res.notes, f"removed the DEFINE of {render(Var(names[0]))} (every row qualifies)"],
                               True)
    return res


def delete_term(text: str, path: Path) -> CanvasResult:
    """The query without the term at ``path`` (its DEFINE goes when nothing else names it)."""
    nodes, edges = query_to_canvas(parse_text(text))
    nid = term_id(path)
    if not any(n["id"] == nid for n in nodes):
        raise EditError("that term is no longer in the pattern")
    return apply_canvas(text, [n for n in nodes if n["id"] != nid], edges)


def box_parts(text: str, path: Path) -> tuple[str, str]:
    """A box's symbol without its quantifier (``( | )``, ``PERMUTE``, ``( … )``) and the quantifier."""
    from app.sql_edit import strip_offsets
    from engine.engines.sql.row_pattern import Quantified

    try:
        node = node_at(strip_offsets(parse_text(text).pattern), path)
    except (IndexError, TypeError):
        raise EditError("that box is no longer in the pattern") from None
    body = node.body if isinstance(node, Quantified) else node
    base = "( … )" if is_term(body) else box_symbol(body)
    return base, box_symbol(node)[len(base):]


def edit_box(text: str, path: Path, quantifier: str) -> CanvasResult:
    """The query with the box at ``path`` repeated as ``quantifier`` says (empty: once)."""
    nodes, edges = query_to_canvas(parse_text(text))
    nid = box_id(path)
    if not any(n["id"] == nid for n in nodes):
        raise EditError("that box is no longer in the pattern")
    base, _old = box_parts(text, path)
    content = f"**{escape.markdown(base + quantifier.strip())}**"
    return apply_canvas(text, [{**n, "data": {**n["data"], "content": content}} if n["id"] == nid else n
                               for n in nodes], edges)


def new_term(text: str, label: str, after: Path | None, define: str) -> CanvasResult:
    new_text = add_term(text, label, after, define)
    return CanvasResult(new_text, [f"added {label}"], new_text != text)


# --------------------------------------------------------------------------- the dialog

def open_dialog(path: Path | None, kind: str = "t") -> None:
    """A fresh dialog for the term (``kind`` "t") or box ("g") at ``path`` (None: a new term)."""
    ss = st.session_state
    n = int((ss.get(DRAFT) or {}).get("n", 0)) + 1
    ss[DRAFT] = {"n": n}
    if path is None:
        add_dialog()
    elif kind == "g":
        box_dialog(path)
    else:
        edit_dialog(path)


@st.dialog("Repeat a group", width="large")
def box_dialog(path: Path) -> None:
    from app import sql_canvas

    text = sql_canvas.current_text()
    try:
        base, quant = box_parts(text, path)
    except EditError as err:
        st.error(escape.message(err.message), icon=":material/error:")
        return
    st.markdown(f"The group {escape.code(base + quant)} and its members (edit a member with a click on it).")
    options = ["", *[q for q in QUANTIFIERS if q]]
    labels = {**QUANTIFIERS, "": "once"}
    chosen = st.selectbox("How many times", options, index=options.index(quant) if quant in options
                          else options.index("other"), format_func=labels.get, key=_key("box_quant"))
    if chosen == "other":
        chosen = st.text_input("Quantifier as SQL writes it", value=quant if quant not in options else "",
                               key=_key("box_quant_text"), placeholder="{2,5}")
    b1, _b2, b3 = st.columns([2, 2, 1])
    if b1.button("Save", type="primary", key=_key("box_save"), width="stretch"):
        _apply(text, lambda: edit_box(text, path, str(chosen)))
    if b3.button("Cancel", key=_key("box_cancel"), width="stretch"):
        st.session_state.pop(DRAFT, None)
        st.rerun()


@st.dialog("Add a term", width="large")
def add_dialog() -> None:
    body(None)


@st.dialog("Edit a term", width="large")
def edit_dialog(path: Path) -> None:
    body(path)


def _key(name: str) -> str:
    return f"sqlcd{(st.session_state.get(DRAFT) or {}).get('n', 0)}_{name}"


def body(path: Path | None) -> None:
    """The dialog's content (a new term when ``path`` is None)."""
    from app import sql_canvas

    text = sql_canvas.current_text()
    try:
        places = occurrences(text)
        info = term_info(text, path) if path is not None else None
    except EditError as err:
        st.error(escape.message(err.message), icon=":material/error:")
        return
    if info is not None and info.get("var") is None:  # an anchor or the empty pattern
        st.markdown(f"{escape.code(info['term'])} has no variable; it can only be deleted.")
        name, quant = "", ""
    else:
        name, quant = split_label(info["term"]) if info else ("", "+")
    if info is None or info.get("var") is not None:
        c1, c2 = st.columns([2, 3])
        name = str(c1.text_input("Variable", value=name, key=_key("name"), placeholder="UP"))
        options = list(QUANTIFIERS)
        chosen = c2.selectbox("How many rows", options, index=options.index(quant) if quant in options
                              else options.index("other"), format_func=QUANTIFIERS.get, key=_key("quant"))
        if chosen == "other":
            quant = str(st.text_input("Quantifier as SQL writes it", value=quant if quant not in options else "",
                                      key=_key("quant_text"), placeholder="{2,5}",
                                      help="{n} exactly n, {n,} at least n, {n,m} between; then ? for fewest first"))
        else:
            quant = str(chosen)
        define = str(st.text_input("DEFINE (the condition a row must meet; empty: every row)",
                                   value=(info or {}).get("define") or "", key=_key("define"),
                                   placeholder="price > PREV(price)"))
    else:
        define = ""
    after: Path | None = None
    if path is None:
        options_after: list[int | None] = [None, *range(len(places))]
        where = st.selectbox("After", options_after, key=_key("after"),
                             format_func=lambda k: "the end of the pattern" if k is None
                             else f"{places[k][1]} (term {k + 1})")
        after = places[where][0] if isinstance(where, int) else None
    b1, b2, b3 = st.columns([2, 2, 1])
    if info is None or info.get("var") is not None:
        if b1.button("Save" if path is not None else "Add the term", type="primary", key=_key("save"),
                     width="stretch"):
            _apply(text, lambda: (edit_term(text, path, make_label(name, quant), define) if path is not None
                                  else new_term(text, make_label(name, quant), after, define)))
    if path is not None and b2.button(f"Delete {escape.markdown(info['term'])}", key=_key("delete"),
                                      icon=":material/delete:", width="stretch"):
        _apply(text, lambda: delete_term(text, path))
    if b3.button("Cancel", key=_key("cancel"), width="stretch"):
        st.session_state.pop(DRAFT, None)
        st.rerun()


def _apply(text: str, make: Any) -> None:
    from app import sql_canvas

    try:
        res = make()
    except EditError as err:
        st.error(escape.message(err.message), icon=":material/error:")
        if err.detail:
            st.code(err.detail, language=None)
        return
    if res.changed:
        sql_canvas.set_text(res.text, res.notes, in_callback=False)
    st.session_state.pop(DRAFT, None)
    st.rerun()


def selected() -> tuple[Path, str] | None:
    """The term chosen on the canvas (a click on it), if it is still in the query."""
    from app import sql_canvas

    chosen = st.session_state.get("sql_selected")
    parsed = parse_id(str(chosen)) if chosen else None
    if parsed is None or parsed[0] != "t":
        return None
    try:
        return parsed[1], term_info(sql_canvas.current_text(), parsed[1])["term"]
    except EditError:
        return None


def buttons() -> None:
    """Above the canvas: add a term, edit the chosen one."""
    chosen = selected()
    c1, c2, _c3 = st.columns([2, 2, 2])
    if c1.button("Add a term", key="sql_cd_open_add", icon=":material/add:", width="stretch"):
        open_dialog(None)
    label = f"Edit {escape.markdown(chosen[1])}" if chosen else "Edit (click a term first)"
    if c2.button(label, key="sql_cd_open_edit", icon=":material/edit:", disabled=chosen is None, width="stretch",
                 help="opens the chosen term's dialog; a click on a term opens it too"):
        open_dialog(chosen[0])
