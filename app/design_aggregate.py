"""The Design page's Aggregate & RETURN form: ``AGG`` / ``GROUP BY`` (A-Seq) and ``RETURN``.

It edits the shared pattern as every side form does (``app.design_forms``: a widget key
carries the pattern's revision; a callback of an older revision does nothing)."""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import edit, state, ui
from app.design_forms import apply_edit, attrs_for, current, form_data_check, reject_unknown_names, schema_in_use
from engine.dsl import DslError, item_text

ss = st.session_state


NO_AGG = "(none: list the matches)"


def _set_aggregate(r: int) -> None:
    if not current(r):
        return

    def go() -> Any:
        func = ss.get(f"ag_func_{r}")
        if func in (None, NO_AGG):
            return edit.set_aggregate(state.pattern(), None)
        var = ss.get(f"ag_var_{r}")
        attr = ss.get(f"ag_attr_{r}")
        p = state.pattern()
        if var in p.variables:
            attrs = attrs_for(p.component(var).type)
            if attr not in attrs:
                attr = _numeric_attr(p.component(var).type) or attrs[0]
        if func == "COUNT" and not ss.get(f"ag_countarg_{r}"):
            var = attr = None
        return edit.set_aggregate(p, func, var, attr, list(ss.get(f"ag_group_{r}") or []))
    apply_edit(go, "aggregate")


def _numeric_attr(type_name: str) -> str | None:
    kinds = schema_in_use().get(type_name, {})
    return next((a for a in sorted(kinds) if kinds[a] == "number"), None)


def _add_returns() -> None:
    txt = (ss.get("rt_text") or "").strip()
    if not txt:
        return
    try:
        q, src = edit.add_returns(state.pattern(), txt)
    except edit.EditError as err:
        state.fail("aggregate", str(err))
        return
    except DslError as err:
        ss["cep_error"] = ("aggregate", str(err), err)
        return
    n = len(q.returns) - len(state.pattern().returns)
    probe = q.model_copy(update={"where": [], "equivalence": [], "aggregate": None, "returns": q.returns[-n:]})
    if reject_unknown_names(probe, "aggregate", src):
        return
    if state.commit(q, "aggregate"):
        ss["rt_text"] = ""


def _remove_return(k: int, r: int) -> None:
    if current(r):
        apply_edit(lambda: edit.remove_return(state.pattern(), k), "aggregate")


def aggregate_form() -> None:
    """``AGG`` / ``GROUP BY`` (A-Seq: one number per trigger event instead of the matches) and
    ``RETURN`` (the columns of a match)."""
    p = state.pattern()
    r = state.rev()
    a = p.aggregate
    positive = [c.var for c in p.positive]
    st.markdown("**Aggregate** (`AGG`, A-Seq): count or sum over all matches without building them")
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
    funcs = [NO_AGG, *edit.AGG_FUNCS]
    c1.selectbox("AGG", funcs, index=funcs.index(a.func) if a else 0, key=f"ag_func_{r}",
                 on_change=_set_aggregate, args=(r,))
    var = a.var if a and a.var in positive else (positive[0] if positive else None)
    arg_on = a is not None and (a.func != "COUNT" or a.var is not None)
    if positive and var is not None:
        c2.selectbox("of variable", positive, index=positive.index(var), key=f"ag_var_{r}",
                     format_func=lambda v: item_text(p.component(v)), on_change=_set_aggregate, args=(r,),
                     disabled=not arg_on)
        attrs = attrs_for(p.component(var).type)
        attr = a.attr if a and a.attr in attrs else (_numeric_attr(p.component(var).type) or attrs[0])
        c3.selectbox("attribute", attrs, index=attrs.index(attr), key=f"ag_attr_{r}", on_change=_set_aggregate,
                     args=(r,), disabled=not arg_on)
    c4.checkbox("COUNT(v.x)", a is not None and a.func == "COUNT" and a.var is not None, key=f"ag_countarg_{r}",
                on_change=_set_aggregate, args=(r,), disabled=not (a and a.func == "COUNT"),
                help="COUNT with an argument counts the matches where v.x is present")
    all_attrs = sorted({x for attrs in schema_in_use().values() for x in attrs} | set(a.group_by if a else []))
    st.multiselect("GROUP BY", all_attrs, default=list(a.group_by) if a else [], key=f"ag_group_{r}",
                   on_change=_set_aggregate, args=(r,), disabled=a is None,
                   help="one result row per value of these attributes")
    st.markdown("**RETURN** (columns of each match; without it, every variable's events)")
    for k, it in enumerate(p.returns):
        c1, c2 = st.columns([6, 1])
        c1.code(edit.return_text(it), language="sql")
        c2.button("", key=f"rt_del_{k}_{r}", icon=":material/delete:", on_click=_remove_return, args=(k, r),
                  help="remove this item", width="stretch")
    c1, c2 = st.columns([4, 1])
    c1.text_input("RETURN items", key="rt_text", placeholder="b.price AS price, a", label_visibility="collapsed")
    c2.button("Add", key="rt_add", on_click=_add_returns, width="stretch")
    ui.pattern_error(("aggregate",))
    form_data_check(("aggregate",))
