"""What an engine declares (engine/engines/spec.py): ``load``, :class:`Lazy` (equality and
hashing by name, the import on the first call and not before, the function kept after it),
:class:`EngineSpec` (defaults, ``interval``, ``load``, ``graph`` and its refusal without a
drawing), :class:`Drawing` defaults and :class:`GraphUnavailable`."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from engine.engines.spec import ALL_SELECTIONS, Drawing, EngineSpec, GraphUnavailable, Lazy, load

MODULE = "spec_probe_module"


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A throwaway module on the path that counts how often it is imported and its function
    called; not imported yet."""
    (tmp_path / f"{MODULE}.py").write_text(textwrap.dedent("""
        import builtins
        builtins._spec_probe_imports = getattr(builtins, "_spec_probe_imports", 0) + 1
        CALLS = []

        def twice(x, *, extra=0):
            CALLS.append(x)
            return 2 * x + extra

        def graph(pattern):
            return ("graph of", pattern)

        class Matcher:
            def __init__(self, pattern):
                self.pattern = pattern
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    import builtins
    monkeypatch.setattr(builtins, "_spec_probe_imports", 0, raising=False)
    yield MODULE
    sys.modules.pop(MODULE, None)


def imports() -> int:
    import builtins
    return builtins._spec_probe_imports  # type: ignore[attr-defined]


def test_load_imports_the_module_and_returns_the_attribute(probe: str) -> None:
    f = load(f"{probe}:twice")
    assert f(3) == 6 and imports() == 1
    assert load(f"{probe}:Matcher")("p").pattern == "p"
    assert imports() == 1  # imported once


def test_load_names_a_missing_attribute_or_module(probe: str) -> None:
    with pytest.raises(AttributeError, match="nope"):
        load(f"{probe}:nope")
    with pytest.raises(ModuleNotFoundError):
        load("engine.no_such_module:f")


def test_lazy_imports_on_the_first_call_only(probe: str) -> None:
    lazy = Lazy(f"{probe}:twice")
    assert MODULE not in sys.modules and imports() == 0  # constructing imports nothing
    assert lazy(5) == 10
    assert MODULE in sys.modules and imports() == 1
    assert lazy(1, extra=4) == 6  # positional and keyword arguments are passed on
    assert sys.modules[MODULE].CALLS == [5, 1]
    # the function is kept: a second call does not load again, even if the module is gone
    del sys.modules[MODULE]
    assert lazy(2) == 4 and imports() == 1


def test_lazy_equality_and_hash_are_by_name() -> None:
    a, b, c = Lazy("m:f"), Lazy("m:f"), Lazy("m:g")
    assert a == b and a != c
    assert hash(a) == hash(b) == hash("m:f")
    assert len({a, b, c}) == 2
    assert a != "m:f"  # not equal to its name
    assert repr(a) == "Lazy('m:f')"


def test_lazy_equality_does_not_import(probe: str) -> None:
    assert Lazy(f"{probe}:twice") == Lazy(f"{probe}:twice")
    assert {Lazy(f"{probe}:twice"): 1}[Lazy(f"{probe}:twice")] == 1
    assert imports() == 0


def test_lazy_refuses_unknown_attributes() -> None:
    with pytest.raises(AttributeError):
        Lazy("m:f").other = 1  # type: ignore[attr-defined]


def spec(**fields: object) -> EngineSpec:
    base: dict[str, object] = dict(name="probe", title="Probe", summary="a probe", factory=f"{MODULE}:Matcher",
                                   supports=Lazy(f"{MODULE}:twice"))
    base.update(fields)
    return EngineSpec(**base)  # type: ignore[arg-type]


def test_engine_spec_defaults() -> None:
    s = spec()
    assert s.data == "point" and not s.interval
    assert s.selections == frozenset({"all"}) and s.strategies is None
    assert s.spark == "keyed" and s.incremental and s.trace_buffers
    assert not (s.aggregate or s.takes_rates or s.prefer_with_rates or s.counts_only or s.feeds_many or s.reference)
    assert s.drawing is None and s.drawn_as is None and s.preference == 0
    assert ALL_SELECTIONS == {"all", "earliest", "maximal", "earliest_maximal"}


def test_interval_property() -> None:
    assert spec(data="interval").interval is True
    assert spec(data="point").interval is False


def test_engine_spec_is_frozen() -> None:
    with pytest.raises(AttributeError):
        spec().name = "other"  # type: ignore[misc]


def test_spec_load_gives_the_factory(probe: str) -> None:
    cls = spec().load()
    assert cls.__name__ == "Matcher" and imports() == 1


def test_graph_without_a_drawing_is_refused_naming_the_engine() -> None:
    with pytest.raises(ValueError) as info:
        spec(name="windowed", drawn_as="nfab").graph("any pattern")
    assert str(info.value) == "engine `windowed` has no automaton drawing of its own"


def test_graph_loads_the_drawing_function(probe: str) -> None:
    s = spec(drawing=Drawing(title="Probe", graph=f"{probe}:graph"))
    assert imports() == 0
    assert s.graph("p") == ("graph of", "p")
    assert imports() == 1


def test_drawing_defaults() -> None:
    d = Drawing(title="T", graph="m:f")
    assert (d.help, d.cited, d.states, d.shown_formulas, d.own_moves, d.names_trace_states, d.ordered_graph) == \
        ("", "", {}, False, True, False, "")


def test_graph_unavailable_is_a_value_error() -> None:
    err = GraphUnavailable("why not")
    assert isinstance(err, ValueError) and str(err) == "why not"
