"""The pattern editor (app.pattern_editor): its pure builders (completion, markers, fixes) and,
with AppTest, the seam the pages use: the browser sends ``{"text", "n"}`` as the component's
value and its on_change applies it (:func:`send_text` sends a value the same way, as a widget
state for the component's id; :func:`editor_args` reads what the page gave the editor)."""
from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import sample_streams
from app import pattern_editor as PE
from engine.dsl import DslError, parse
from engine.events import infer_schema

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
DESIGN = str(ROOT / "app" / "pages" / "1_Design.py")
SCHEMA = {"Stock": {"symbol": "str", "price": "float", "volume": "int"}, "News": {"headline": "str"}}
_SENDS = itertools.count(1)


# --------------------------------------------------------------------------- the seam

def _component(at: AppTest, key: str) -> Any:
    found = [c for c in at.get("component_instance") if c.key == key]
    assert found, f"no editor with key {key} on the page"
    return found[0]


def editor_args(at: AppTest, key: str = "dsl_editor") -> dict[str, Any]:
    """The arguments the page gave the editor: text, version, mode, completions, markers."""
    return json.loads(_component(at, key).proto.json_args)


def type_text(at: AppTest, text: str, key: str = "dsl_editor") -> AppTest:
    """Make the next run of ``at`` carry ``text`` as the editor's value, as the browser sends it
    (Ctrl+Enter, leaving the editor, a pause in typing): a widget state for the component's id
    added to the states of the tree on the page now (also when the next run is another page's)."""
    node = _component(at, key)
    tree = at._tree
    collect = tree.get_widget_states
    value = json.dumps({"text": text, "n": next(_SENDS), "editor": "test"})

    def with_the_editor() -> Any:
        states = collect()
        state = states.widgets.add()
        state.id = node.proto.id
        state.json_value = value
        return states

    tree.get_widget_states = with_the_editor  # type: ignore[method-assign]
    return at


def send_text(at: AppTest, text: str, key: str = "dsl_editor") -> AppTest:
    """Rerun the page as after the editor sent ``text``."""
    return type_text(at, text, key).run()


class Editor:
    """The DSL editor as the AppTests of the pages use it: ``value`` is the text it shows,
    ``input(text)`` sends it with the next run (``input(text).run()`` at once)."""

    def __init__(self, at: AppTest, key: str = "dsl_editor"):
        self.at, self.key = at, key

    @property
    def value(self) -> str:
        return editor_args(self.at, self.key)["text"]

    def input(self, text: str) -> "Editor":
        type_text(self.at, text, self.key)
        return self

    def run(self) -> AppTest:
        return self.at.run()


# --------------------------------------------------------------------------- completion

def test_completion_offers_keywords_types_attributes_and_variables():
    c = PE.dsl_completions(SCHEMA, {"a": "Stock", "b": "News", "x": "Unknown"})
    for word in ("PATTERN", "SEQ", "WHERE", "WITHIN", "skip_till_next_match", "minutes"):
        assert word in c["keywords"]
    assert c["functions"] == ["avg", "sum", "min", "max", "count"]
    assert c["types"] == ["News", "Stock"]
    assert c["variables"] == {"a": "Stock", "b": "News", "x": "Unknown"}
    assert c["members"]["a"] == ["id", "price", "symbol", "ts", "volume"]
    assert c["members"]["b"] == ["headline", "id", "ts"]
    assert c["members"]["x"] == c["attributes"]  # a type the data does not have: every attribute
    assert set(c["attributes"]) == {"symbol", "price", "volume", "headline", "ts", "id"}


def test_variables_come_from_the_pattern_and_from_text_that_does_not_parse_yet():
    p = parse("PATTERN SEQ(Stock+ a[], News b)")
    assert PE.variables_of(p) == {"a": "Stock", "b": "News"}
    typed = "PATTERN SEQ(Stock+ a[], !News n, AND(Stock c, Stock d)\nWHERE a[i].price > "
    assert PE.variables_of(None, typed) == {"a": "Stock", "n": "News", "c": "Stock", "d": "Stock"}


def test_sql_completion_offers_sql_words_columns_and_variables():
    c = PE.sql_completions(["symbol", "price", "price"], ["STRT", "DOWN"])
    assert {"MATCH_RECOGNIZE", "DEFINE", "PATTERN", "MEASURES"} <= set(c["keywords"])
    assert {"PREV", "LAST"} <= set(c["functions"])
    assert c["attributes"] == ["symbol", "price"]
    assert c["members"] == {"STRT": ["symbol", "price"], "DOWN": ["symbol", "price"]}


# --------------------------------------------------------------------------- markers and fixes

def _err(text: str) -> DslError:
    with pytest.raises(DslError) as info:
        parse(text)
    return info.value


def test_a_parse_error_is_a_marker_at_its_line_and_column_with_the_message():
    text = "PATTERN SEQ(Stock+ a[], Stock b)\nWHERE a[1].volume >> 1000\n"
    [m] = PE.error_markers(_err(text), text)
    err = _err(text)
    assert (m.line, m.column) == (err.span[0], err.span[1]) and m.line == 2
    assert m.width >= 1 and m.severity == "error" and m.fix is None
    assert m.message == err.message and m.text.startswith(f"Line 2, column {m.column}: ")
    assert PE.error_markers(err, "another text") == []  # an error about other text is not shown


def test_an_undefined_variable_gets_a_fix_of_exactly_the_name():
    text = "PATTERN SEQ(Stock+ a[], Stock b)\nWHERE bb.price > 1\n"
    [m] = PE.error_markers(_err(text), text)
    assert m.message == "undefined variable `bb`" and m.hint == "did you mean `b`?"
    assert m.fix == PE.Fix(2, 7, 2, "b", "bb")
    fixed = PE.apply_fix(text, m.fix)
    assert fixed == "PATTERN SEQ(Stock+ a[], Stock b)\nWHERE b.price > 1\n"
    assert parse(fixed)


def test_data_markers_locate_unknown_attributes_and_types_with_their_fix():
    schema = infer_schema(sample_streams.events("stocks_sase"))
    text = "PATTERN SEQ(Stock+ a[], Stok b)\nWHERE skip_till_next_match AND a[1].prise > 1\nWITHIN 30 minutes"
    p = parse(text)
    markers = PE.data_markers(p, schema, text)
    error, warning = markers
    assert (error.line, error.column, error.severity) == (2, 32, "error")
    assert error.message == "unknown attribute `prise` on `a` (type Stock)" and error.hint == "did you mean `price`?"
    assert error.fix == PE.Fix(2, 37, 5, "price", "prise")
    assert (warning.line, warning.column, warning.width, warning.severity) == (1, 25, 4, "warning")
    assert warning.fix == PE.Fix(1, 25, 4, "Stock", "Stok")
    fixed = PE.apply_fix(PE.apply_fix(text, error.fix), warning.fix)
    assert fixed == text.replace("prise", "price").replace("Stok b", "Stock b")
    assert PE.data_markers(parse(fixed), schema, fixed) == []


def test_an_equivalence_attribute_is_fixed_inside_the_brackets():
    schema = infer_schema(sample_streams.events("stocks_sase"))
    text = "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match\n  AND [symbl]"
    [m] = PE.data_markers(parse(text), schema, text)
    assert (m.line, m.column, m.width) == (3, 8, 5) and m.fix == PE.Fix(3, 8, 5, "symbol", "symbl")


def test_sql_errors_are_markers_with_a_fix():
    from engine.engines.sql.binding import bind
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.parser import parse_query
    from sample_streams.sql_queries import presets

    text = presets()["v_shape"].text
    assert "DEFINE DOWN AS price <" in text
    typo = text.replace("DEFINE DOWN AS price <", "DEFINE DOWN AS pricx <")
    from engine.engines.sql.run import inline_table
    from engine.engines.sql.table_io import read_table

    q = parse_query(typo)
    table = inline_table(q) or read_table(presets()["v_shape"].data)
    with pytest.raises(SqlError) as info:
        bind(q, table.columns)
    [m] = PE.error_markers(info.value, typo)
    assert m.fix is not None and (m.fix.wrong, m.fix.replacement) == ("pricx", "price")
    assert PE.apply_fix(typo, m.fix) == text


def test_a_fix_for_a_text_that_changed_does_nothing():
    fix = PE.Fix(1, 3, 2, "b", "bb")
    assert PE.apply_fix("x bb y", fix) == "x b y"
    assert PE.apply_fix("x cc y", fix) == "x cc y"
    assert PE.apply_fix("", fix) == ""


_word = hs.from_regex(r"[A-Za-z_][A-Za-z_0-9]{0,8}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(before=hs.lists(hs.text("ab .\n[]", max_size=12), max_size=3).map("\n".join),
       wrong=_word, replacement=_word, after=hs.text("ab .,)\n", max_size=12), prefix=hs.sampled_from(["", "a.", "a[1]."]))
def test_a_fix_changes_exactly_its_span(before, wrong, replacement, after, prefix):
    """Whatever the text around it, a fix built from a span and a "did you mean" replaces
    the misspelled name and leaves every other character as it was."""
    text = f"{before}\nx {prefix}{wrong}{after}"
    line = text.count("\n") + 1 - after.count("\n")
    column = 3
    fix = PE.fix_for(text, (line, column, len(prefix) + len(wrong)), f"unknown attribute `{wrong}`",
                     f"did you mean `{replacement}`?")
    if wrong == replacement:
        assert fix is None
        return
    assert fix is not None and fix.wrong == wrong and fix.column == column + len(prefix)
    fixed = PE.apply_fix(text, fix)
    assert fixed == f"{before}\nx {prefix}{replacement}{after}"


def test_marker_args_are_plain_json():
    m = PE.Marker(1, 2, 3, "unknown attribute `<b>x</b>`", "did you mean `y`?", fix=PE.Fix(1, 2, 3, "y", "x"))
    arg = json.loads(json.dumps(m.as_arg()))
    assert arg["text"] == "Line 1, column 2: unknown attribute <b>x</b>; did you mean y?"  # shown as text
    assert arg["fix"]["replacement"] == "y"


def test_the_component_files_ship_with_the_package():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["app"]
    folder = PE.COMPONENT_DIR
    for name in ("index.html", "editor.js", "vendor/ace.js", "vendor/ext-language_tools.js", "vendor/LICENSE"):
        path = folder / name
        assert path.is_file(), name
        rel = path.relative_to(ROOT / "app")
        assert any(rel.match(pattern) for pattern in data), f"{rel} is not in the package data"
    html = (folder / "index.html").read_text()
    assert "http://" not in html and "https://" not in html  # nothing from the network


# --------------------------------------------------------------------------- AppTest: the seam

def _design() -> AppTest:
    at = AppTest.from_file(DESIGN, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_editor_gets_the_text_completion_and_the_data_markers():
    at = _design()
    args = editor_args(at)
    assert args["text"] == sample_streams.load("stocks_sase").presets["stock_trend"]
    assert args["mode"] == "dsl" and args["markers"] == []
    assert args["completions"]["members"]["b"] == ["id", "price", "symbol", "ts", "volume"]
    assert "Stock" in args["completions"]["types"]
    assert any("Ctrl+Enter" in c.value for c in at.caption)


def test_typed_text_is_kept_as_typed_and_the_canonical_text_shown_beside():
    at = _design()
    typed = "PATTERN SEQ(Stock a,   Stock b)\nWHERE [symbol] AND a.price < b.price\nWITHIN 30 minutes"
    send_text(at, typed)
    assert not at.exception and not at.error
    assert at.session_state["cep_pattern"] == parse(typed)
    assert editor_args(at)["text"] == typed and at.session_state["cep_text"] == typed
    assert any("WITHIN 30 min" in c.value and "minutes" not in c.value for c in at.code)  # canonical, beside
    at.button(key="dsl_format").click().run()  # Format is what rewrites the text
    assert "WITHIN 30 min\n" in editor_args(at)["text"] + "\n" and "minutes" not in editor_args(at)["text"]


def test_a_typo_is_a_marker_and_its_fix_button_applies_the_pattern():
    at = _design()
    typed = "PATTERN SEQ(Stock a, Stock b)\nWHERE [symbol] AND bb.price > 1\nWITHIN 30 minutes"
    before = at.session_state["cep_pattern"]
    send_text(at, typed)
    assert at.session_state["cep_pattern"] == before  # refused: the pattern stays
    args = editor_args(at)
    assert args["text"] == typed  # the typed text stays in the editor
    [m] = args["markers"]
    assert (m["line"], m["column"], m["message"]) == (2, 20, "undefined variable `bb`")
    assert m["fix"] == {"line": 2, "column": 20, "width": 2, "replacement": "b", "wrong": "bb"}
    fix = at.button(key="dsl_fix_0")
    assert fix.label == "Replace bb with b"
    fix.click().run()
    assert not at.exception and not at.error
    fixed = typed.replace("bb.price", "b.price")
    assert at.session_state["cep_pattern"] == parse(fixed)
    assert editor_args(at)["text"] == fixed  # still the person's text, `30 minutes` kept
    # an unknown attribute of the data: a marker (error) and its fix
    send_text(at, fixed.replace("b.price", "b.prise"))
    [m] = editor_args(at)["markers"]
    assert m["severity"] == "error" and m["fix"]["replacement"] == "price"
    at.button(key="dsl_fix_0").click().run()
    assert at.session_state["cep_text"] == fixed and editor_args(at)["markers"] == []


def test_a_fix_that_still_leaves_an_error_shows_the_fixed_text():
    at = _design()
    before = at.session_state["cep_pattern"]
    typed = "PATTERN SEQ(Stock a, Stock bee, Stock cee)\nWHERE be.price > ce.price"
    send_text(at, typed)
    version = editor_args(at)["version"]
    [m] = editor_args(at)["markers"]
    assert m["fix"]["wrong"] == "be"
    at.button(key="dsl_fix_0").click().run()
    once = typed.replace("be.price", "bee.price")
    args = editor_args(at)
    assert args["text"] == once and args["version"] != version  # the editor shows the fixed text
    assert at.session_state["cep_pattern"] == before
    [m] = args["markers"]
    assert m["fix"]["wrong"] == "ce"
    at.button(key="dsl_fix_0").click().run()
    assert at.session_state["cep_pattern"] == parse(once.replace("ce.price", "cee.price"))


def test_edits_elsewhere_replace_the_editor_text():
    at = _design()
    send_text(at, "PATTERN SEQ(Stock a, Stock b)\nWITHIN 30 minutes")
    at.selectbox(key="ca_type").set_value("Stock")
    at.text_input(key="ca_var").input("c")
    at.button(key="ca_add").click().run()
    assert editor_args(at)["text"].startswith("PATTERN SEQ(Stock a, Stock b, Stock c)")
    assert "c" in editor_args(at)["completions"]["variables"]


def test_the_sql_editor_is_the_same_component_in_sql_mode():
    from sample_streams.sql_queries import presets

    at = AppTest.from_file(DESIGN, default_timeout=60)
    at.session_state["lang"] = "sql"
    at.run()
    assert not at.exception
    key = "sql_code_v_shape"
    args = editor_args(at, key)
    assert args["mode"] == "sql" and args["text"] == presets()["v_shape"].text
    assert "MATCH_RECOGNIZE" in args["completions"]["keywords"] and args["completions"]["variables"]
    typo = args["text"].replace("PATTERN", "PATERN", 1)
    send_text(at, typo, key)
    assert at.session_state["sql_text"] == typo and at.session_state["sql_editor_v_shape"] == typo
    assert editor_args(at, key)["markers"], "the parse error is a marker"
    send_text(at, args["text"], key)
    assert at.session_state["sql_text"] == args["text"] and editor_args(at, key)["markers"] == []


def test_the_sql_fix_button_writes_the_query():
    from sample_streams.sql_queries import presets

    at = AppTest.from_file(DESIGN, default_timeout=60)
    at.session_state["lang"] = "sql"
    at.run()
    text = presets()["v_shape"].text
    typo = text.replace("DEFINE DOWN AS price <", "DEFINE DOWN AS pricx <")
    send_text(at, typo, "sql_code_v_shape")
    [m] = editor_args(at, "sql_code_v_shape")["markers"]
    assert m["text"].startswith("Line 10, column 18: no column 'pricx' in the input")
    fix = at.button(key="sql_fix_0")
    assert fix.label == "Replace pricx with price"
    fix.click().run()
    assert not at.exception
    assert at.session_state["sql_text"] == text and editor_args(at, "sql_code_v_shape")["text"] == text
    assert editor_args(at, "sql_code_v_shape")["markers"] == []
