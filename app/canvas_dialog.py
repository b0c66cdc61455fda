"""The canvas dialog of the Design page: create, edit or delete one component.

A real modal of the page (``st.dialog``), opened from the buttons above the canvas or by a click
on a node. It asks for the event type (from the data in use), the variable, how many events, NOT,
where the component goes (a group and the item it follows) and the component's predicates; the
choices are kept in session state while the dialog is open (every widget change reruns only the
dialog) and applied at once with :func:`app.canvas_choices.apply_choices` when the person saves.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import edit, state, ui
from app.canvas_choices import (ELEMENTS, OPERATORS, QUANTIFIERS, Choices, NewPredicate, apply_choices,
                                delete, location, places, predicates_of)
from engine.dsl import DslError, item_text, parse_expr
from visualizers import escape

OTHER = "(another type)"
ANY = "ANY"
DRAFT = "cd_draft"


def _draft() -> dict[str, Any]:
    return st.session_state.setdefault(DRAFT, {"n": 0, "original": None, "add": [], "remove": []})


def open_dialog(original: str | None) -> None:
    """Start a fresh dialog for ``original`` (None: a new component) and show it."""
    ss = st.session_state
    n = int((ss.get(DRAFT) or {}).get("n", 0)) + 1
    ss[DRAFT] = {"n": n, "original": original, "add": [], "remove": [], "error": None}
    if original is None:
        add_dialog()
    else:
        edit_dialog(original)


@st.dialog("Add a component", width="large")
def add_dialog() -> None:
    body(None)


@st.dialog("Edit a component", width="large")
def edit_dialog(original: str) -> None:
    body(original)


def _key(name: str) -> str:
    return f"cd{_draft()['n']}_{name}"


def attributes(schema: dict[str, dict[str, str]], type_name: str) -> list[str]:
    """The attributes a predicate on an event of ``type_name`` can use (every type's for ANY or a
    type the data lacks), then ``ts`` and ``id``."""
    if type_name in schema:
        names = sorted(schema[type_name])
    else:
        names = sorted({a for attrs in schema.values() for a in attrs})
    return [a for a in names if a not in ("ts", "id")] + ["ts", "id"]


def _type_widget(schema: dict[str, dict[str, str]], current: str | None) -> str:
    types = sorted(schema)
    if not types:
        return str(st.text_input("Event type", value=current or "", key=_key("type_text"),
                                 placeholder="Stock", help="no data is in use, so write the type's name"))
    options = [*types, ANY]
    if current and current not in options:
        options.append(current)
    options.append(OTHER)
    index = options.index(current) if current in options else 0
    chosen = st.selectbox("Event type", options, index=index, key=_key("type"),
                          help="the event types of the data in use; ANY matches every event")
    if chosen == OTHER:
        return str(st.text_input("Type name", key=_key("type_other"), placeholder="Stock"))
    return str(chosen)


def body(original: str | None) -> None:
    """The dialog's content (for a new component when ``original`` is None)."""
    ss = st.session_state
    draft = _draft()
    p = state.pattern()
    if original is not None and original not in p.variables:
        st.warning(f"There is no component {escape.markdown(original)} any more.")
        return
    schema = state.data_schema()
    comp = p.component(original) if original is not None else None
    c1, c2 = st.columns([3, 2])
    with c1:
        type_name = _type_widget(schema, comp.type if comp else None)
    with c2:
        var = str(st.text_input("Variable", value=comp.var if comp else edit.fresh_var(p.variables),
                                key=_key("var"), help="a name for the component's events in predicates"))
    quants = list(QUANTIFIERS)
    quant = str(st.radio("How many events", quants, index=quants.index(comp.quant) if comp else 0,
                         format_func=QUANTIFIERS.get, horizontal=True, key=_key("quant")))
    negated = bool(st.checkbox("Must not occur (NOT)", value=bool(comp and comp.negated), key=_key("neg"),
                               help="the match is kept only when no such event comes at this place"))

    # where it goes
    groups = edit.groups(p)
    paths = [g for g, _ in groups]
    here_group, here_after = location(p, original) if original is not None else ((), None)
    c1, c2 = st.columns(2)
    group = c1.selectbox("In group", paths, index=paths.index(here_group), key=_key("group"),
                         format_func=dict(groups).get)
    spots = places(p, tuple(group), skip=original)
    keys = [k for k, _ in spots]
    default = keys.index(here_after) if (here_after in keys and tuple(group) == here_group) else len(keys) - 1
    after = c2.selectbox("After", keys, index=default, key=_key("after"), format_func=dict(spots).get,
                         help="the item this component follows in the group")

    kleene = quant in ("plus", "star")
    _predicates(p, original, var.strip() or "?", type_name, kleene, schema)

    error = draft.get("error")
    if error:
        ui.show_error(error[0], error[1], "")
    choices = Choices(type=type_name, var=var, quant=quant, negated=negated, original=original,
                      group=tuple(group), after=str(after), remove=list(draft["remove"]),
                      add=list(draft["add"]))
    b1, b2, b3 = st.columns([2, 2, 1])
    if b1.button("Save" if original else "Add the component", type="primary", key=_key("save"), width="stretch"):
        _commit(lambda: apply_choices(p, choices), choices.var.strip())
    if original is not None:
        if b2.button(f"Delete {escape.markdown(original)}", key=_key("delete"), icon=":material/delete:",
                     width="stretch"):
            _commit(lambda: delete(p, original), None)
        try:
            _q, notes = delete(p, original)
            also = notes[1:]
        except edit.EditError as err:
            also = [str(err)]
        if also:
            st.caption("Deleting it also: " + "; ".join(escape.markdown(n.replace("`", "")) for n in also))
    if b3.button("Cancel", key=_key("cancel"), width="stretch"):
        ss.pop(DRAFT, None)
        st.rerun()


def _commit(make: Any, selected: str | None) -> None:
    """Apply the dialog's edit and close it; a refusal is shown in the dialog, which stays open."""
    ss = st.session_state
    try:
        q, notes = make()
    except edit.EditError as err:
        ui.show_error(str(err), None, "")
        return
    except DslError as err:
        ui.show_error(str(err), err, "")
        return
    if not state.commit(q, "canvas", notes):
        e = state.error()
        state.clear_error()  # shown here, in the dialog, not behind it
        ui.show_error(*(e[1:] if e else ("the pattern was not changed", None)), "")
        return
    if selected:
        ss["cep_selected"] = selected
    ss.pop(DRAFT, None)
    st.rerun()


def _predicates(p: Any, original: str | None, var: str, type_name: str, kleene: bool,
                schema: dict[str, dict[str, str]]) -> None:
    """The component's predicates (remove) and a builder for new ones (kept until saved)."""
    draft = _draft()
    st.markdown("**Predicates on this component**")
    shown = 0
    for k, text in predicates_of(p, original) if original is not None else []:
        removed = k in draft["remove"]
        c1, c2 = st.columns([6, 1])
        c1.markdown(("~~" + escape.code(text) + "~~ (removed when you save)") if removed else escape.code(text))
        c2.button("Keep" if removed else "Remove", key=_key(f"rm{k}"), on_click=_toggle_remove, args=(k,),
                  width="stretch")
        shown += 1
    for j, new in enumerate(draft["add"]):
        c1, c2 = st.columns([6, 1])
        c1.markdown(escape.code(new.text(var, kleene)) + " (new)")
        c2.button("Remove", key=_key(f"rmnew{j}"), on_click=_drop_new, args=(j,), width="stretch")
        shown += 1
    if not shown:
        st.caption("none yet")

    st.markdown("**Add a predicate** (kept when you save)")
    attrs = attributes(schema, type_name)
    cols = st.columns([2, 2, 1] if kleene else [3, 1])
    if kleene:
        element = cols[0].selectbox("Which of its events", list(ELEMENTS), format_func=ELEMENTS.get,
                                    key=_key("elem"))
        cols = cols[1:]
    else:
        element = "each"
    attr = cols[0].selectbox("Attribute", attrs, key=_key("attr"))
    op = cols[1].selectbox("Compare", OPERATORS, index=OPERATORS.index(">"), key=_key("op"))
    others = [v for v in p.variables if v != original]
    kinds = ["a value", "another component's attribute"] if others else ["a value"]
    kind = st.radio("with", kinds, horizontal=True, key=_key("kind"))
    new = NewPredicate(attr=str(attr), op=str(op), element=str(element))
    if kind == "a value":
        new.value = str(st.text_input("Value (a number, or a text)", key=_key("value"), placeholder="100"))
    else:
        c1, c2 = st.columns(2)
        other = c1.selectbox("Component", others, key=_key("other"),
                             format_func=lambda v: item_text(p.component(v)))
        new.other_var = str(other)
        new.other_attr = str(c2.selectbox("Its attribute", attributes(schema, p.component(other).type),
                                          key=_key("other_attr")))
    c1, c2 = st.columns([4, 2])
    c1.code(new.text(var, kleene), language="sql")
    c2.button("Add the predicate", key=_key("add_pred"), width="stretch", on_click=_add_new)


def _toggle_remove(k: int) -> None:
    draft = _draft()
    if k in draft["remove"]:
        draft["remove"].remove(k)
    else:
        draft["remove"].append(k)


def _drop_new(j: int) -> None:
    draft = _draft()
    if 0 <= j < len(draft["add"]):
        draft["add"].pop(j)


def _built() -> tuple[NewPredicate, str, bool]:
    """The predicate the builder shows now (read from its widgets), the variable and Kleene-ness."""
    ss = st.session_state
    kleene = ss.get(_key("quant")) in ("plus", "star")
    new = NewPredicate(attr=str(ss.get(_key("attr")) or "ts"), op=str(ss.get(_key("op")) or ">"),
                       element=str(ss.get(_key("elem")) or "each") if kleene else "each")
    if ss.get(_key("kind"), "a value") == "a value":
        new.value = str(ss.get(_key("value")) or "")
    else:
        other = ss.get(_key("other"))
        new.other_var = str(other)
        new.other_attr = str(ss.get(_key("other_attr")) or "ts")
    return new, str(ss.get(_key("var")) or "").strip() or "?", kleene


def _add_new() -> None:
    """The builder's "Add the predicate": checked, then kept in the draft until the person saves."""
    draft = _draft()
    new, var, kleene = _built()
    if new.other_var is None and not new.value.strip():
        draft["error"] = ("write the value to compare with (a number or a text)", None)
        return
    try:
        parse_expr(new.text(var, kleene))
    except DslError as err:
        draft["error"] = (str(err), err)
        return
    draft["add"].append(new)
    draft["error"] = None
    st.session_state[_key("value")] = ""


def selected_var() -> str | None:
    """The component chosen on the canvas (a click on its node), if it is still in the pattern."""
    var = st.session_state.get("cep_selected")
    return var if var in state.pattern().variables else None


def buttons() -> None:
    """Above the canvas: add a component, edit the chosen one."""
    var = selected_var()
    c1, c2, _c3 = st.columns([2, 2, 2])
    if c1.button("Add a component", key="cd_open_add", icon=":material/add:", width="stretch"):
        open_dialog(None)
    label = f"Edit {escape.markdown(var)}" if var else "Edit (click a node first)"
    if c2.button(label, key="cd_open_edit", icon=":material/edit:", disabled=var is None, width="stretch",
                 help="opens the chosen component's dialog; a click on a node opens it too"):
        open_dialog(var)
