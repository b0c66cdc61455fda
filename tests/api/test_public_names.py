"""The API's public names are listed once (``engine.api.__all__``) and stay: a name that
disappears fails here. Adding one: add it to FROZEN too. ``import engine`` stays light."""
from __future__ import annotations

import subprocess
import sys

import engine
import engine.api

FROZEN = ["parse", "run", "option_names", "ParsedPattern", "ParsedQuery", "Result", "Explanation", "Trace",
          "Automaton", "CommandError", "DslError", "SqlError", "PatternError"]

#: methods and attributes of the objects the API returns
FROZEN_MEMBERS = {
    "Result": ["to_pandas", "to_arrow", "to_records", "to_jsonl", "explain", "why_not", "trace", "timeline",
               "all_events", "variables", "_repr_html_", "__len__", "__iter__", "__getitem__"],
    "ParsedPattern": ["model", "text", "variables", "components", "automaton", "with_strategy", "is_aggregate",
                      "_repr_html_"],
    "ParsedQuery": ["query", "text", "_repr_html_"],
    "Explanation": ["to_dict", "text", "data", "_repr_html_"],
    "Trace": ["steps", "engine", "_repr_html_"],
    "Automaton": ["figure", "graph", "_repr_html_"],
}


def test_every_frozen_name_is_public_and_reexported():
    missing = [n for n in FROZEN if n not in engine.api.__all__]
    assert not missing, f"public names removed from engine.api.__all__: {missing}"
    for name in FROZEN:
        assert getattr(engine, name) is getattr(engine.api, name)
    assert set(FROZEN) <= set(dir(engine))


def test_members_stay():
    import dataclasses

    for cls_name, members in FROZEN_MEMBERS.items():
        cls = getattr(engine, cls_name)
        fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
        for m in members:
            assert hasattr(cls, m) or m in fields, f"{cls_name}.{m} is gone"


def test_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError):
        engine.no_such_name  # noqa: B018


def test_import_engine_imports_no_heavy_module():
    code = ("import sys, engine, engine.commands.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pandas', 'plotly', 'pyspark', 'pyarrow', 'visualizers', 'streamlit') or m.startswith('engine.api')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
