"""The Design page's forms: presets, DSL editor, save/load, and the side forms for
components, groups, predicates, window, strategy and output.

Every form changes the shared pattern through ``app.edit`` + ``state.commit`` in a
widget callback, so the canvas and the editor redraw in the same rerun.

One source of truth: every widget that shows a part of the pattern (the editor, the
strategy, window, output, ``[attr]``, aggregate and preset boxes) has the pattern's
revision in its key and takes its value from the pattern when it is created. Its
callback applies it only while that revision is the pattern's (:func:`current`):
while the page reruns, the browser still shows (and sends back) the widgets of the
run before, and Streamlit calls the ``on_change`` of such an old widget with the value
it was drawn with, e.g. the editor's text from before a canvas edit, which would undo
that edit, or the old window after typed text without one.
Names are checked against the data in use (``state.data_schema``) as ``cep run`` does.
"""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

import sample_streams
from app import edit, pattern_editor, state, ui
from engine.dsl import DslError, item_text, to_text
from engine.expr import to_text as expr_text
from engine.model import Component, Group, Strategy
from visualizers import escape

ss = st.session_state


def rkey(name: str) -> str:
    """A widget key tied to the pattern's current revision (see the module docstring)."""
    return f"{name}_{state.rev()}"


def current(key_or_rev: str | int) -> bool:
    """True when a widget key made by :func:`rkey` (or a revision number) is the pattern's
    current revision; a callback of a widget from an older revision does nothing."""
    r = key_or_rev if isinstance(key_or_rev, int) else key_or_rev.rpartition("_")[2]
    return str(r) == str(state.rev())


QUANTS = {"one": "one event", "plus": "+ one or more (Kleene)", "star": "* zero or more (Kleene)",
          "opt": "? optional"}
STRATEGIES = {
    Strategy.STRICT.value: "strict contiguity: the events follow one another",
    Strategy.PARTITION.value: "partition contiguity: contiguous within the partition",
    Strategy.NEXT.value: "skip till next match: skip irrelevant events, take the next relevant one",
    Strategy.ANY.value: "skip till any match: every combination",
}
UNITS = ["ms", "s", "min", "hour", "day", "events", "(unit of ts)"]
OPS = ["=", "!=", "<", "<=", ">", ">="]


def apply_edit(fn: Callable[[], Any], source: str = "form") -> None:
    """Run an edit; EditError / DslError become the shown error."""
    try:
        out = fn()
    except edit.EditError as err:
        state.fail(source, str(err))
        return
    except DslError as err:
        ss["cep_error"] = (source, str(err), err)
        return
    if isinstance(out, tuple):
        state.commit(out[0], source, out[1])
    else:
        state.commit(out, source)


# --------------------------------------------------------------------------- presets

def _preset_options() -> list[tuple[str, str]]:
    return [(s, p) for s in sample_streams.names() for p in sample_streams.load(s).presets]


def _load_preset(key: str) -> None:
    choice = ss.get(key)
    if choice:
        s, p = choice
        state.load_preset(s, p)


def _new_pattern() -> None:
    types = _types()
    t = types[0] if types else "A"
    apply_edit(lambda: edit.new_pattern(t))


def _set_sample(key: str) -> None:
    if key != _sample_key():  # the box of another sample than the one in use: a late echo
        return
    state.set_sample(ss[key])


def _sample_key() -> str:
    return f"design_sample__{state.sample_name()}"


def preset_bar() -> None:
    c1, c2, c4, c3 = st.columns([3, 1, 1, 3])
    opts = _preset_options()
    cur = (state.sample_name(), ss.get("cep_preset"))
    key = rkey("design_preset")
    c1.selectbox("Preset", opts, index=opts.index(cur) if cur in opts else None, key=key,
                 format_func=lambda o: f"{o[0]} / {o[1]}", placeholder="(none: your own pattern)")
    c2.markdown("<div style='height:1.8em'></div>", unsafe_allow_html=True)
    c2.button("Load preset", key="design_load_preset", on_click=_load_preset, args=(key,), width="stretch")
    c4.markdown("<div style='height:1.8em'></div>", unsafe_allow_html=True)
    c4.button("New", key="design_new", on_click=_new_pattern, width="stretch",
              help="start over from one component of the data's first event type")
    names = sample_streams.names()
    skey = _sample_key()
    c3.selectbox("Sample data (attribute pickers, name checks, Run page)", names, key=skey,
                 index=names.index(state.sample_name()) if state.sample_name() in names else 0,
                 on_change=_set_sample, args=(skey,))
    kind, label = state.data_in_use()
    if kind != "sample":
        c3.caption(f"The Run page uses the {'uploaded ' if kind == 'upload' else ''}file **{escape.markdown(label)}**; names "
                   "are checked against its columns. Choose a sample here to switch back.")


# --------------------------------------------------------------------------- DSL editor

EDITOR_KEY = "dsl_editor"  # the editor's widget key: its value is what the browser sent last
TYPED_KEY = "cep_editor_typed"  # (text, revision): typed text that was not applied (it has an error)
FIXES_KEY = "cep_editor_fixes"  # counts the one-click fixes (the editor shows a fixed text that failed too)
EDITOR_HELP = ("The pattern is applied when you press Ctrl+Enter (Cmd+Enter on a Mac), click outside the editor "
               "or stop typing for a moment. Ctrl+Space lists the keywords, event types, variables and "
               "attributes you can write; after a variable and a dot, its attributes.")


def _apply_typed(txt: str) -> None:
    """Apply text typed in the editor: the pattern (the text kept as typed) or, when it does not
    parse, the error, with the typed text kept in the editor."""
    if state.commit_text(txt, "editor"):
        ss.pop(TYPED_KEY, None)
    else:
        ss[TYPED_KEY] = (txt, state.rev())


def _on_editor(key: str = EDITOR_KEY) -> None:
    """The editor sent its text (``ss[key]``, see app.pattern_editor): apply it."""
    txt = pattern_editor.sent_text(ss.get(key))
    if txt is not None:
        _apply_typed(txt)


def _format() -> None:
    state.commit_text(to_text(state.pattern()), "editor")
    ss.pop(TYPED_KEY, None)


def _apply_fix(drawn: str, fix: pattern_editor.Fix) -> None:
    """A one-click fix: the span replaced in the text it was made for, then applied."""
    if editor_text() != drawn:
        return  # the text changed since the button was drawn
    ss[FIXES_KEY] = int(ss.get(FIXES_KEY) or 0) + 1
    _apply_typed(pattern_editor.apply_fix(drawn, fix))


def editor_markers(txt: str) -> list[pattern_editor.Marker]:
    """The problems of the editor's text: the parser's error when the text was refused, else the
    names the data in use does not have."""
    e = state.error()
    if e is not None and e[0] == "editor":
        return pattern_editor.error_markers(e[2], txt)
    if txt != state.text():
        return []
    return pattern_editor.data_markers(state.pattern(), state.data_schema(), txt)


def editor() -> None:
    """The DSL editor (app.pattern_editor): the person's text kept as typed, completion from the
    data in use and the pattern's variables, the errors at their place with a one-click fix for
    each "did you mean"."""
    txt = editor_text() or state.text()
    markers = editor_markers(txt)
    completions = pattern_editor.dsl_completions(state.data_schema(), pattern_editor.variables_of(state.pattern(), txt))
    pattern_editor.editor(txt, key=EDITOR_KEY, version=f"{state.rev()}.{int(ss.get(FIXES_KEY) or 0)}",
                          completions=completions, markers=markers, height=260, on_change=_on_editor,
                          args=(EDITOR_KEY,))
    st.caption(EDITOR_HELP)
    fixes = [m.fix for m in markers if m.fix is not None]
    for i, fix in enumerate(fixes):
        st.button(escape.markdown(fix.label), key=f"dsl_fix_{i}", icon=":material/auto_fix_high:",
                  on_click=_apply_fix, args=(txt, fix),
                  help=escape.markdown(f"line {fix.line}, column {fix.column}: write {fix.replacement} instead of "
                                       f"{fix.wrong} and apply the pattern"))
    st.button("Format", key="dsl_format", on_click=_format, help="rewrite the text in canonical form")


def editor_text() -> str | None:
    """What the editor holds: the typed text that was refused (until the pattern changes), else
    the pattern's text (None before the pattern exists)."""
    typed = ss.get(TYPED_KEY)
    if typed and typed[1] == state.rev():
        return str(typed[0])
    return ss.get("cep_text")


def data_check() -> None:
    """The pattern against the data in use, as ``cep run`` checks it (under the editor)."""
    if editor_text() not in (None, state.text()):
        return  # the editor holds text that was not applied (it has its own error)
    kind, label = state.data_in_use()
    schema = state.data_schema()
    if not schema:
        return
    probs = edit.data_problems(state.pattern(), schema, state.text())
    if not probs:
        st.caption(f":material/check_circle: Every event type and attribute is in the data **{escape.markdown(label)}**.")
        return
    ui.show_data_problems(probs, f"Data {escape.markdown(label)}: ")


def form_data_check(sources: tuple[str, ...]) -> None:
    """After an edit from one of ``sources``: what it left unknown to the data, shown there."""
    if state.edit_source() not in sources:
        return
    schema = state.data_schema()
    if schema:
        ui.show_data_problems(edit.data_problems(state.pattern(), schema, state.text()))


def canvas_data_check() -> None:
    form_data_check(("canvas",))


def reject_unknown_names(q: Any, source: str, text: str) -> bool:
    """A predicate / aggregate / RETURN added by a form is refused when it names an
    attribute the data does not have (the error is rendered against ``text``, what the
    person typed or the form built). The rest of the pattern is not re-checked here."""
    schema = state.data_schema()
    if not schema:
        return False
    probs = [x for x in edit.data_problems(q, schema, text) if x.severity == "error"]
    if probs:
        ss["cep_error"] = (source, probs[0].text, None)
        return True
    return False


# --------------------------------------------------------------------------- save / load

def _upload_key() -> str:
    """The uploader's key: a new (empty) uploader after every file that loaded."""
    return f"design_upload_{int(ss.get('cep_uploads') or 0)}"


def _on_upload(key: str) -> None:
    """Load the file once: a file already read (Streamlit may call this again with the same
    file when the browser re-sends the widget's state) or an old uploader does nothing."""
    f = ss.get(key)
    if f is None or key != _upload_key():
        return
    done = ss.setdefault("cep_uploaded_ids", [])
    if f.file_id in done:
        return
    raw = f.getvalue().decode("utf-8", errors="replace")
    if f.name.lower().endswith(".json") or raw.lstrip().startswith("{"):
        ok = state.commit_json(raw, "load")
    else:
        ok = state.commit_text(raw, "load")
    if ok:
        done.append(f.file_id)
        del done[:-20]
        ss["cep_uploads"] = int(ss.get("cep_uploads") or 0) + 1
        ss["cep_uploaded_name"] = f.name


def save_load() -> None:
    with st.expander("Save / load", expanded=False):
        p = state.pattern()
        c1, c2 = st.columns(2)
        c1.download_button("Save .cep", to_text(p), file_name="pattern.cep", mime="text/plain",
                           key="design_save_cep", width="stretch")
        c2.download_button("Save .json", p.model_dump_json(indent=2), file_name="pattern.json",
                           mime="application/json", key="design_save_json", width="stretch")
        key = _upload_key()
        st.file_uploader("Load a .cep or .json pattern", type=["cep", "json", "txt"], key=key,
                         on_change=_on_upload, args=(key,))
        if ss.get("cep_uploaded_name") and state.edit_source() == "load":
            st.caption(f"Loaded **{escape.markdown(ss['cep_uploaded_name'])}**.")
        ui.pattern_error(("load",))


# --------------------------------------------------------------------------- helpers

def schema_in_use() -> dict[str, dict[str, str]]:
    return state.data_schema()


def _types() -> list[str]:
    return sorted(schema_in_use())


def attrs_for(type_name: str | None) -> list[str]:
    sch = schema_in_use()
    if type_name is None or type_name == "ANY" or type_name not in sch:
        names = sorted({a for attrs in sch.values() for a in attrs})
    else:
        names = sorted(sch[type_name])
    return names + ["ts", "id"]


def _path_label(p: Any, path: tuple[int, ...]) -> str:
    return dict(edit.groups(p)).get(path, str(path))


# --------------------------------------------------------------------------- component form

def _selected_var() -> str | None:
    vs = state.pattern().variables
    cur = ss.get("cep_selected")
    return cur if cur in vs else (vs[0] if vs else None)


def _edit_values(var: str) -> Component:
    r = state.rev()
    return Component(type=ss[f"ce_type_{var}_{r}"].strip(), var=ss[f"ce_var_{var}_{r}"].strip(),
                     quant=ss[f"ce_quant_{var}_{r}"], negated=ss[f"ce_neg_{var}_{r}"])


def _update(var: str) -> None:
    def go() -> Any:
        c = _edit_values(var)
        if not c.type or not c.var:
            raise edit.EditError("type and variable must not be empty")
        out = edit.update_component(state.pattern(), var, c)
        ss["cep_selected"] = c.var
        return out
    apply_edit(go)


def _delete(var: str) -> None:
    apply_edit(lambda: edit.delete_component(state.pattern(), var))


def _path_of(var: str) -> tuple[int, ...]:
    from visualizers.canvas import iter_items

    for path, it in iter_items(state.pattern().root):
        if isinstance(it, Component) and it.var == var:
            return path
    raise edit.EditError(f"no component `{var}`")


def _move(var: str, delta: int) -> None:
    apply_edit(lambda: edit.move_item(state.pattern(), _path_of(var), delta))


def _add() -> None:
    def go() -> Any:
        t = (ss.get("ca_type_other") or "").strip() if ss.get("ca_type") == "(other)" else ss.get("ca_type")
        if not t:
            raise edit.EditError("give the event type of the new component")
        var = (ss.get("ca_var") or "").strip() or edit.fresh_var(state.pattern().variables)
        c = Component(type=t, var=var, quant=ss.get("ca_quant", "one"), negated=bool(ss.get("ca_neg")))
        group = ss.get("ca_group") or ()
        pos = ss.get("ca_pos")
        return edit.add_component(state.pattern(), c, tuple(group), None if pos is None or pos < 0 else pos)
    apply_edit(go)


def component_form() -> None:
    p = state.pattern()
    r = state.rev()
    var = _selected_var()
    st.markdown("**Edit a component** (or click a node on the canvas)")
    if var is not None:
        vs = p.variables
        ss["ce_pick"] = var
        st.selectbox("Component", vs, key="ce_pick", format_func=lambda v: item_text(p.component(v)),
                     on_change=lambda: ss.__setitem__("cep_selected", ss["ce_pick"]))
        c = p.component(var)
        c1, c2, c3, c4 = st.columns([2, 1, 2, 1])
        c1.text_input("Event type", c.type, key=f"ce_type_{var}_{r}")
        c2.text_input("Variable", c.var, key=f"ce_var_{var}_{r}")
        c3.selectbox("Quantifier", list(QUANTS), index=list(QUANTS).index(c.quant), key=f"ce_quant_{var}_{r}",
                     format_func=QUANTS.get)
        c4.checkbox("negated", c.negated, key=f"ce_neg_{var}_{r}")
        b1, b2, b3, b4 = st.columns(4)
        b1.button("Update", key="ce_update", on_click=_update, args=(var,), type="primary",
                  width="stretch")
        b2.button("◀ Earlier", key="ce_left", on_click=_move, args=(var, -1), width="stretch")
        b3.button("Later ▶", key="ce_right", on_click=_move, args=(var, 1), width="stretch")
        b4.button("Delete", key="ce_delete", on_click=_delete, args=(var,), width="stretch")

    st.markdown("**Add a component**")
    types = _types()
    c1, c2, c3 = st.columns([2, 1, 2])
    c1.selectbox("Event type", types + ["ANY", "(other)"], key="ca_type")
    if ss.get("ca_type") == "(other)":
        c1.text_input("Type name", key="ca_type_other")
    c2.text_input("Variable", key="ca_var", placeholder=edit.fresh_var(p.variables))
    c3.selectbox("Quantifier", list(QUANTS), key="ca_quant", format_func=QUANTS.get)
    c4, c5, c6 = st.columns([1, 2, 2])
    c4.checkbox("negated", key="ca_neg")
    groups = edit.groups(p)
    c5.selectbox("In group", [g for g, _ in groups], key="ca_group", format_func=lambda g: _path_label(p, g))
    grp = ss.get("ca_group") or ()
    try:
        from visualizers.canvas import item_at

        target = item_at(p.root, tuple(grp))
        items = target.items if isinstance(target, Group) else []
    except (IndexError, AssertionError):
        items = []
    c6.selectbox("Position", [-1] + list(range(len(items))), key="ca_pos",
                 format_func=lambda k: "at the end" if k < 0 else f"before {item_text(items[k])}")
    st.button("Add component", key="ca_add", on_click=_add, type="primary")


# --------------------------------------------------------------------------- groups form

def _wrap() -> None:
    apply_edit(lambda: edit.wrap_items(state.pattern(), tuple(ss.get("gw_group") or ()), list(ss.get("gw_items") or []),
                                   ss.get("gw_op", "AND")))


def _ungroup() -> None:
    apply_edit(lambda: edit.ungroup(state.pattern(), tuple(ss.get("gu_group") or ())))


def _set_op() -> None:
    apply_edit(lambda: edit.set_group_op(state.pattern(), tuple(ss.get("go_group") or ()), ss.get("go_op", "SEQ")))


def group_form() -> None:
    from visualizers.canvas import item_at

    p = state.pattern()
    groups = edit.groups(p)
    paths = [g for g, _ in groups]
    st.markdown("**Group items** (SEQ: in order · AND: all, any order · OR: one of)")
    c1, c2, c3 = st.columns([2, 3, 1])
    c1.selectbox("From group", paths, key="gw_group", format_func=lambda g: _path_label(p, g))
    tgt = item_at(p.root, tuple(ss.get("gw_group") or ()))
    items = tgt.items if isinstance(tgt, Group) else []
    c2.multiselect("Items", list(range(len(items))), key="gw_items", format_func=lambda k: item_text(items[k]))
    c3.selectbox("as", ["AND", "OR", "SEQ"], key="gw_op")
    st.button("Group", key="gw_go", on_click=_wrap)
    c1, c2, c3 = st.columns([3, 1, 1])
    c1.selectbox("Group", paths, key="go_group", format_func=lambda g: _path_label(p, g))
    c2.selectbox("operator", ["SEQ", "AND", "OR"], key="go_op")
    c3.markdown("<div style='height:1.8em'></div>", unsafe_allow_html=True)
    c3.button("Set", key="go_set", on_click=_set_op)
    inner = [g for g in paths if g]
    if inner:
        c1, c2 = st.columns([4, 1])
        c1.selectbox("Remove a group (keep its items)", inner, key="gu_group", format_func=lambda g: _path_label(p, g))
        c2.markdown("<div style='height:1.8em'></div>", unsafe_allow_html=True)
        c2.button("Ungroup", key="gu_go", on_click=_ungroup)


# --------------------------------------------------------------------------- predicates form

def _index_options(var: str) -> list[tuple[str, str]]:
    c = state.pattern().component(var)
    if not c.kleene:
        return [("each", var)]
    opts = [("1", f"{var}[1] first"), ("i", f"{var}[i] the one being added"), ("i-1", f"{var}[i-1] the one before"),
            ("last", f"{var}[last] last"), ("each", f"{var} every element")]
    for f in ("avg", "sum", "min", "max", "count"):
        opts.append((f"agg:{f}", f"{f}({var}[..i-1]) over the earlier ones"))
    for f in ("avg", "sum", "min", "max", "count"):
        opts.append((f"all:{f}", f"{f}({var}[]) over all"))
    opts.append(("len", f"{var}.len length"))
    return opts


def _operand(prefix: str) -> str:
    var = ss.get(f"{prefix}_var")
    idx = ss.get(f"{prefix}_idx") or "each"
    attr = ss.get(f"{prefix}_attr") or "ts"
    p = state.pattern()
    if var is None or var not in p.variables:
        return ""
    return edit.predicate_text(var, idx, attr, p.component(var).kleene)


def _builder_text() -> str:
    left = _operand("pl")
    op = ss.get("pb_op", ">")
    kind = ss.get("pr_kind", "number")
    if kind == "number":
        v = ss.get("pr_num", 0.0)
        right = str(int(v)) if float(v).is_integer() else str(v)
    elif kind == "text":
        right = "'" + str(ss.get("pr_text", "")).replace("\\", "\\\\").replace("'", "\\'") + "'"
    else:
        right = _operand("pr")
    factor = (ss.get("pr_factor") or "").strip()
    if factor and kind == "attribute":
        right = f"{factor} * {right}"
    return f"{left} {op} {right}"


def _add_predicate(txt: str, source: str) -> bool:
    """Add a WHERE conjunct; a syntax error or an attribute the data lacks is shown at the form."""
    try:
        q = edit.add_predicate(state.pattern(), txt)
    except DslError as err:
        ss["cep_error"] = (source, str(err), err)
        return False
    probe = q.model_copy(update={"where": [q.where[-1]], "equivalence": [], "returns": [], "aggregate": None})
    if reject_unknown_names(probe, source, txt):
        return False
    return state.commit(q, source)


def _add_built() -> None:
    _add_predicate(_builder_text(), "predicate")


def _add_typed() -> None:
    txt = (ss.get("pt_text") or "").strip()
    if txt and _add_predicate(txt, "predicate"):
        ss["pt_text"] = ""


def _remove_pred(k: int, r: int) -> None:
    if current(r):  # the k-th predicate of the pattern that button was drawn for
        apply_edit(lambda: edit.remove_predicate(state.pattern(), k))


def _set_equiv(key: str) -> None:
    if current(key):
        apply_edit(lambda: edit.set_equivalence(state.pattern(), list(ss.get(key) or [])))


def _operand_widgets(prefix: str, cols: list[Any], label: str) -> None:
    p = state.pattern()
    vs = [c.var for c in p.components()]
    if ss.get(f"{prefix}_var") not in vs:  # the pattern changed under the form (load, delete, rename)
        ss[f"{prefix}_var"] = vs[0]
    cols[0].selectbox(f"{label} variable", vs, key=f"{prefix}_var",
                      format_func=lambda v: item_text(p.component(v)))
    var = ss.get(f"{prefix}_var") if ss.get(f"{prefix}_var") in vs else vs[0]
    opts = _index_options(var)
    keys = [k for k, _ in opts]
    if ss.get(f"{prefix}_idx") not in keys:
        ss[f"{prefix}_idx"] = keys[0]
    cols[1].selectbox("which", keys, key=f"{prefix}_idx", format_func=dict(opts).get)
    attrs = attrs_for(p.component(var).type)
    if ss.get(f"{prefix}_attr") not in attrs:
        ss[f"{prefix}_attr"] = attrs[0]
    cols[2].selectbox("attribute", attrs, key=f"{prefix}_attr", disabled=ss.get(f"{prefix}_idx") == "len")


def predicate_form() -> None:
    p = state.pattern()
    st.markdown("**Predicates** (all must hold)")
    if not p.where and not p.equivalence:
        st.caption("none yet")
    for k, e in enumerate(p.where):
        c1, c2 = st.columns([6, 1])
        c1.code(expr_text(e), language="sql")
        c2.button("", key=f"pd_{k}_{state.rev()}", icon=":material/delete:", on_click=_remove_pred,
                  args=(k, state.rev()), help="remove this predicate", width="stretch")
    all_attrs = sorted({a for attrs in schema_in_use().values() for a in attrs} | set(p.equivalence))
    key = rkey("pe_attrs")
    st.multiselect("Same value in every event of a match `[attr]` (partitions the stream)", all_attrs,
                   default=list(p.equivalence), key=key, on_change=_set_equiv, args=(key,))
    if not p.components():
        return
    st.markdown("**Build a predicate**")
    cols = st.columns([2, 3, 2])
    _operand_widgets("pl", cols, "Left")
    c1, c2 = st.columns([1, 3])
    c1.selectbox("compare", OPS, index=OPS.index(">"), key="pb_op")
    c2.radio("with", ["number", "text", "attribute"], horizontal=True, key="pr_kind")
    kind = ss.get("pr_kind", "number")
    if kind == "number":
        st.number_input("number", value=0.0, key="pr_num", format="%g")
    elif kind == "text":
        st.text_input("text", key="pr_text")
    else:
        cols = st.columns([2, 3, 2])
        _operand_widgets("pr", cols, "Right")
        st.text_input("times (optional, e.g. `80%` or `2`)", key="pr_factor")
    txt = _builder_text()
    c1, c2 = st.columns([4, 1])
    c1.code(txt, language="sql")
    c2.button("Add", key="pb_add", on_click=_add_built, type="primary", width="stretch")
    st.markdown("**Or type one**")
    c1, c2 = st.columns([4, 1])
    c1.text_input("predicate", key="pt_text", placeholder="a[i].price > avg(a[..i-1].price)",
                  label_visibility="collapsed")
    c2.button("Add", key="pt_add", on_click=_add_typed, width="stretch")
    ui.pattern_error(("predicate",))
    form_data_check(("predicate",))


# --------------------------------------------------------------------------- window / strategy / output

def _set_strategy(key: str) -> None:
    if current(key):
        apply_edit(lambda: edit.set_strategy(state.pattern(), ss[key]))


def _set_window(r: int) -> None:
    if not current(r):
        return

    def go() -> Any:
        if not ss.get(f"ws_has_window_{r}"):
            return edit.set_window(state.pattern(), None, None)
        unit = ss.get(f"ws_unit_{r}")
        return edit.set_window(state.pattern(), float(ss.get(f"ws_value_{r}") or 0),
                               None if unit == "(unit of ts)" else unit)
    apply_edit(go)


def _set_output(key: str) -> None:
    if current(key):
        apply_edit(lambda: edit.set_output(state.pattern(), ss[key]))


def window_form() -> None:
    p = state.pattern()
    r = state.rev()
    w = p.window
    unit = (w.unit or "(unit of ts)") if w else "hour"
    key = f"ws_strategy_{r}"
    st.radio("Event selection strategy", list(STRATEGIES), index=list(STRATEGIES).index(p.strategy.value), key=key,
             format_func=STRATEGIES.get, on_change=_set_strategy, args=(key,),
             help="without one in WHERE, a pattern uses skip_till_any_match (every combination)")
    c1, c2, c3 = st.columns([1, 1, 1])
    c1.checkbox("WITHIN", w is not None, key=f"ws_has_window_{r}", on_change=_set_window, args=(r,))
    c2.number_input("window", min_value=0.001, value=float(w.value) if w else 1.0, key=f"ws_value_{r}", format="%g",
                    on_change=_set_window, args=(r,), disabled=w is None)
    c3.selectbox("unit", UNITS, index=UNITS.index(unit), key=f"ws_unit_{r}", on_change=_set_window, args=(r,),
                 disabled=w is None)
    key = f"ws_output_{r}"
    st.radio("Output", ["ALL", "NON_OVERLAP"], index=["ALL", "NON_OVERLAP"].index(p.output), key=key,
             horizontal=True, on_change=_set_output, args=(key,),
             format_func={"ALL": "ALL matches", "NON_OVERLAP": "NON_OVERLAP (one at a time per partition)"}.get)
