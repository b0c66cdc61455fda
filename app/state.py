"""The one pattern every page shares, in ``st.session_state``.

Keys (all prefixed ``cep_``):

``cep_pattern``  the last valid :class:`engine.model.Pattern`
``cep_text``     its DSL text as shown in the editor (a person's own formatting is kept)
``cep_rev``      bumped on every change; the canvas and the editor redraw when it moves
``cep_error``    the last rejected edit: ``(source, message, DslError | None)`` or None
``cep_notes``    what the last canvas edit did ("added `Stock c`")
``cep_sample``   the sample data set the pattern goes with (attribute pickers, Run page)
``cep_preset``   the preset it came from, if any
``cep_edit_from`` where the last accepted edit came from (editor, form, predicate, canvas ...)
``cep_data``     the data the Run page uses when it is not the sample: ``{"kind", "label", "schema"}``
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import streamlit as st

import sample_streams
from engine.dsl import DslError, parse, to_text
from engine.model import Pattern, PatternError

DEFAULT_SAMPLE = "stocks_sase"
DEFAULT_PRESET = "stock_trend"

# Home page cards: what each preset finds, in plain words, and the page that shows it best
@dataclass(frozen=True)
class PresetCard:
    """A Home card: ``finds`` says what the pattern finds (plain words); ``page`` / ``page_label``
    the page that shows it best, and ``why_page`` what is to be seen there."""

    title: str
    sample: str
    preset: str
    finds: str
    page: str
    page_label: str
    why_page: str


PRESET_CARDS: list[PresetCard] = [
    PresetCard("Stock trend", "stocks_sase", "stock_trend",
               "A run of rising prices, each above the average of the run so far, followed by a drop in "
               "volume, for the same stock, within 1 hour. Eight stock ticks: skipping to the next fitting "
               "event gives 3 matches; keeping every combination gives 68.",
               "pages/4_Debug.py", "Debug", "step through the runs event by event and see why each match fired"),
    PresetCard("Shoplifting", "rfid", "shoplifting",
               "An item read at a shelf and then at the exit with no register reading in between (a "
               "negated component), for the same tag, within 12 hours.",
               "pages/3_Run.py", "Run", "the matches with their readings on a timeline"),
    PresetCard("Contamination", "shipments", "contamination",
               "An alert at a contaminated site, then a chain of shipments leaving it, each one leaving from "
               "where the previous one arrived, within 3 hours.",
               "pages/4_Debug.py", "Debug", "watch the chain grow one shipment at a time"),
    PresetCard("Chemotherapy", "chemo", "chemo_cycle",
               "A chemo dose and rising platelet counts in any order, then a blood test, for the same "
               "patient, WITHIN 16 days. The studio first cuts the stream into the spans that can hold a "
               "match, then matches inside them: 10 matches.",
               "pages/2_Automaton.py", "Automaton", "the automaton that takes the dose and the counts in any order"),
    PresetCard("Cluster monitoring", "cluster", "query1",
               "A task starts, CPU spikes on its node, the task ends, CPU drops. The times of these events "
               "are uncertain (each lies somewhere in an interval), so every result comes with a "
               "confidence.",
               "pages/6_Uncertain_time.py", "Uncertain time", "each result's possible times and its confidence"),
    PresetCard("Event sets, earliest and maximal", "chemo", "chemo_earliest",
               "The chemo query with its events as a set: for each start event it keeps the earliest "
               "matches that no further event extends. The stream is first cut into the spans that can "
               "hold a match (per patient), which skips most of it.",
               "pages/4_Debug.py", "Debug", "the spans kept and skipped, and why"),
    PresetCard("Trades in any order", "trades", "rising_then_falling",
               "Rising AAPL and GOOG prices in any order, then falling IBM prices, within 40 ms, earliest and "
               "maximal matches only.",
               "pages/3_Run.py", "Run", "the matches and how much of the stream was skipped"),
]


def _ss() -> Any:
    return st.session_state


def init() -> None:
    """Make sure the shared keys exist (the default preset on first visit)."""
    ss = _ss()
    if "cep_pattern" not in ss:
        load_preset(DEFAULT_SAMPLE, DEFAULT_PRESET)
    ss.setdefault("cep_error", None)
    ss.setdefault("cep_notes", [])
    ss.setdefault("cep_sample", DEFAULT_SAMPLE)


def pattern() -> Pattern:
    init()
    return _ss()["cep_pattern"]


def text() -> str:
    init()
    return _ss()["cep_text"]


def rev() -> int:
    return int(_ss().get("cep_rev", 0))


def sample_name() -> str:
    init()
    return _ss()["cep_sample"]


def set_sample(name: str) -> None:
    _ss()["cep_sample"] = name
    _ss().pop("cep_data", None)  # a sample chosen on Design is the data in use again


def edit_source() -> str | None:
    """Where the last accepted edit came from (``editor``, ``form``, ``predicate``, ``canvas`` ...)."""
    return _ss().get("cep_edit_from")


def set_data_in_use(kind: str, label: str, schema: dict[str, dict[str, str]] | None,
                    interval: bool = False) -> None:
    """The Run page's data: a sample (``kind="sample"``) or a file (upload / path) with its
    schema and whether its events are intervals."""
    ss = _ss()
    if kind == "sample":
        ss.pop("cep_data", None)
        if label != ss.get("cep_sample"):
            ss["cep_sample"] = label
        return
    ss["cep_data"] = {"kind": kind, "label": label, "schema": schema or {}, "interval": interval}


def data_is_interval() -> bool:
    """True when the events of the data in use have uncertainty intervals (lower, upper)."""
    d = _ss().get("cep_data")
    if d:
        return bool(d.get("interval"))
    try:
        return sample().mapping.get("lower_col") is not None
    except Exception:  # noqa: BLE001
        return False


def data_in_use() -> tuple[str, str]:
    """``(kind, label)`` of the data the pattern is checked and run against."""
    d = _ss().get("cep_data")
    if d:
        return d["kind"], d["label"]
    return "sample", sample_name()


def data_schema() -> dict[str, dict[str, str]]:
    """Event type -> attribute -> kind of the data in use ({} when unknown)."""
    d = _ss().get("cep_data")
    if d:
        return dict(d.get("schema") or {})
    try:
        return sample_schema(sample_name())
    except Exception:  # noqa: BLE001 - a sample that cannot be read has no schema to check against
        return {}


def _set(p: Pattern, txt: str, source: str = "load") -> None:
    ss = _ss()
    ss["cep_pattern"] = p
    ss["cep_text"] = txt
    ss["cep_rev"] = rev() + 1
    ss["cep_error"] = None
    ss["cep_edit_from"] = source


def load_preset(sample: str, preset: str) -> None:
    s = sample_streams.load(sample)
    txt = s.presets[preset]
    _set(parse(txt), txt, "preset")
    ss = _ss()
    ss["cep_sample"] = sample
    ss.pop("cep_data", None)
    ss["cep_preset"] = preset
    ss["cep_notes"] = []


def commit(p: Pattern, source: str = "form", notes: list[str] | None = None) -> bool:
    """Validate ``p`` (DSL round trip + ``Pattern.check``) and make it the pattern.

    On failure the previous pattern stays and ``cep_error`` says why; returns success."""
    try:
        txt = to_text(p)  # a designer model past the limits (nesting, inf/NaN) cannot be printed
        q = parse(txt)
    except (DslError, PatternError) as err:
        _ss()["cep_error"] = (source, str(err), err)
        return False
    if q == pattern() and source != "load":
        _ss()["cep_error"] = None
        return True
    _set(q, txt, source)
    _ss()["cep_preset"] = None
    _ss()["cep_notes"] = list(notes or [])
    return True


def commit_text(txt: str, source: str = "editor") -> bool:
    """Parse DSL text a person typed; keeps their text when valid."""
    try:
        q = parse(txt)
    except DslError as err:
        _ss()["cep_error"] = (source, str(err), err)
        return False
    if q != pattern():
        _set(q, txt, source)
        _ss()["cep_preset"] = None
    else:  # same pattern, other formatting: keep the text and its spans (error carets point into it)
        ss = _ss()
        if txt != ss.get("cep_text"):
            ss["cep_rev"] = rev() + 1  # widgets showing the text redraw
        ss["cep_pattern"] = q
        ss["cep_text"] = txt
        ss["cep_error"] = None
        ss["cep_edit_from"] = source
    _ss()["cep_notes"] = []
    return True


def commit_json(raw: str, source: str = "load") -> bool:
    try:
        q = Pattern.model_validate_json(raw).check()
    except (ValueError, PatternError) as err:
        _ss()["cep_error"] = (source, f"invalid pattern JSON: {err}", None)
        return False
    return commit(q, source)


def fail(source: str, message: str) -> None:
    _ss()["cep_error"] = (source, message, None)


def error() -> tuple[str, str, DslError | None] | None:
    return _ss().get("cep_error")


def clear_error() -> None:
    _ss()["cep_error"] = None


def notes() -> list[str]:
    return list(_ss().get("cep_notes") or [])


def sample() -> sample_streams.Sample:
    return sample_streams.load(sample_name())


@st.cache_data(show_spinner=False)
def sample_schema(name: str) -> dict[str, dict[str, str]]:
    """Event type -> attribute -> kind, for the attribute pickers."""
    from engine.events import infer_schema

    return infer_schema(sample_streams.events(name))


# --------------------------------------------------------------------------- Spark

def spark_enabled() -> bool:
    return os.environ.get("CEP_SPARK_WARMUP", "1") != "0"


_WARM: dict[str, Any] = {"state": "not started"}


def _warm() -> None:
    """Start the session, then run the default sample twice the way the Run page runs a
    sample on Spark (engine.spark.pipeline.warm_up: read on the driver, one collect), so the
    JVM has compiled that path and each core has a Python worker before a person's first run."""
    try:
        from engine.spark.pipeline import warm_up
        from engine.spark.session import get_spark

        _WARM["state"] = "starting"
        spark = get_spark()
        _WARM["state"] = "warming up"
        s = sample_streams.load(DEFAULT_SAMPLE)
        warm_up(s.presets[DEFAULT_PRESET], s.path, mapping=s.mapping, spark=spark, rounds=2)
        _WARM["state"] = "ready"
    except Exception as err:  # noqa: BLE001 - reported when a run needs Spark
        _WARM["state"] = f"unavailable ({str(err).splitlines()[0] if str(err) else type(err).__name__})"


@st.cache_resource(show_spinner=False)
def _spark_warmup() -> Any:
    import threading

    t = threading.Thread(target=_warm, name="cep-studio-spark-warmup", daemon=True)
    t.start()
    return t


def warm_up_spark() -> None:
    """Start the process's SparkSession in the background (once per process)."""
    if not spark_enabled():
        return
    try:
        _spark_warmup()
    except Exception:  # noqa: BLE001 - Spark problems are reported when a run needs it
        pass


def spark_status() -> str:
    """``ready``, ``starting``, ``warming up``, ``not started`` or ``unavailable (...)``."""
    if _WARM["state"] != "not started":
        return _WARM["state"]
    try:
        from engine.spark import session as S
    except ImportError:
        return "unavailable"
    return "ready" if S.running_session() is not None else "not started"


def spark_cluster() -> str:
    """Where the app's Spark runs when ``cep serve`` named a cluster or a Spark Connect server
    (``CEP_SPARK_MASTER``): its address, with its executors once the session runs; "" when
    Spark runs in this process (local)."""
    try:
        from engine.spark import session as S
    except ImportError:
        return ""
    master = S.default_master()
    if S.is_local(master):
        return ""
    running = S.running_session()
    if running is not None:
        try:
            return S.describe(running)
        except Exception:  # noqa: BLE001 - a session stopping
            pass
    return master
