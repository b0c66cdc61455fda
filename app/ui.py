"""Small shared pieces of the pages: page set-up, sidebar, error boxes."""
from __future__ import annotations

import streamlit as st

from app import state
from engine.dsl import DslError
from visualizers import escape


MENU_ITEMS = {"Get help": None, "Report a bug": None,
              "About": "**CEP Studio**: design complex-event patterns (SASE+), see their automata, run them "
                       "in-process or on Spark, and step through why each match fired."}


_frozen = False


def _freeze_once() -> None:
    """Move what the process has loaded by its first page (modules, caches of the libraries) out
    of the garbage collector's sight (``gc.freeze``): a full collection then walks only what the
    runs made, not the million objects of pyspark, pandas and plotly (0.12 s each before)."""
    global _frozen
    if not _frozen:
        import gc

        gc.collect()
        gc.freeze()
        _frozen = True


def page(title: str, icon: str = "🔎", with_sidebar: bool = True) -> None:
    """Common set-up: page config, shared state, Spark warm-up, sidebar (a page that
    chooses the data itself draws the sidebar once it knows which, with ``sidebar()``)."""
    st.set_page_config(page_title="CEP Studio" if title == "Home" else f"{title} · CEP Studio", page_icon=icon,
                       layout="wide", menu_items=MENU_ITEMS)
    from app import timing

    _freeze_once()
    timing.install()
    timing.note_page(title)
    state.init()
    state.warm_up_spark()
    if with_sidebar:
        sidebar()
    from app import glossary

    glossary.sidebar()


def data_line() -> str:
    """What the sidebar says about the data: the sample, or the file the Run page uses."""
    kind, label = state.data_in_use()
    if kind == "sample":
        preset = st.session_state.get("cep_preset")
        if preset and preset not in state.sample().presets:
            preset = None  # a preset of another sample
        return f"Sample data: **{escape.markdown(label)}**" + (f" · preset **{escape.markdown(preset)}**" if preset else "")
    return f"{'Uploaded file' if kind == 'upload' else 'File'}: **{escape.markdown(label)}**"


def sidebar() -> None:
    with st.sidebar:
        st.caption("Current pattern")
        st.code(state.text().strip(), language="sql", wrap_lines=True)
        st.caption(data_line())
        st.caption(f"Spark: {escape.message(state.spark_status())}")


def show_error(message: str, err: DslError | None = None, where: str = "") -> None:
    """A DSL error with its line/column and the caret under the offending text (its first
    line escaped, names in backticks as code; the caret lines as code)."""
    text = str(err) if err is not None and err.line is not None else message
    head, _, rest = text.partition("\n")  # a message rendered elsewhere may carry its caret lines too
    st.error(f"{where}{escape.message(head)}", icon=":material/error:")
    if rest.strip():
        st.code(rest, language=None)


def error(message: object, icon: str = ":material/error:") -> None:
    """An error box for a message the app did not write itself (an exception's text, a
    data file's complaint): escaped, names in backticks as code; lines after the first
    (caret lines) as code."""
    head, _, rest = str(message).partition("\n")
    st.error(escape.message(head), icon=icon)
    if rest.strip():
        st.code(rest, language=None)


def warning(message: object, icon: str = ":material/warning:") -> None:
    """A warning box for a message the app did not write itself (see ``error``)."""
    head, _, rest = str(message).partition("\n")
    st.warning(escape.message(head), icon=icon)
    if rest.strip():
        st.code(rest, language=None)


def show_data_problems(problems: list, where: str = "") -> None:
    """``app.edit.DataProblem`` s: errors red, warnings yellow, each with its caret lines."""
    for pr in problems:
        box = st.error if pr.severity == "error" else st.warning
        box(f"{where}{escape.message(pr.head)}", icon=":material/error:" if pr.severity == "error" else ":material/warning:")
        if pr.detail.strip():
            st.code(pr.detail, language=None)


def data_check(pattern: object, schema: dict[str, dict[str, str]], source: str,
               where: str = "Pattern vs data: ") -> bool:
    """The pattern checked against the data's schema exactly as the Run page (and ``cep run``)
    checks it (``app.edit.data_problems``): errors red, warnings yellow. False when there is an
    error (an unknown attribute, ...): the page then shows no result, as Run refuses to run."""
    from app.edit import data_problems

    problems = data_problems(pattern, schema, source)  # type: ignore[arg-type]
    show_data_problems(problems, where)
    return not any(pr.severity == "error" for pr in problems)


def pattern_error(sources: tuple[str, ...] | None = None) -> bool:
    """Show the last rejected edit (if it came from one of ``sources``); True if shown."""
    e = state.error()
    if e is None or (sources is not None and e[0] not in sources):
        return False
    src, msg, err = e
    label = {"editor": "DSL: ", "canvas": "Canvas: ", "form": "", "load": "Load: "}.get(src, "")
    show_error(msg, err, label)
    return True


def link_to_page(path: str, label: str, icon: str | None = None) -> None:
    """``st.page_link``, or a caption when the page runs on its own (AppTest)."""
    try:
        st.page_link(path, label=label, icon=icon)
    except Exception:  # noqa: BLE001 - StreamlitPageNotFoundError outside the multipage app
        st.caption(label)


def sample_picker(prefix: str) -> tuple[object, object]:
    """The sample stream picker of the Run and Debug pages (keys ``{prefix}_sample``): it follows
    the sample the pattern was loaded with until the person picks another. Returns the sample
    and its ``runner.Source``."""
    import sample_streams
    from app import runner

    ss = st.session_state
    if ss.get(f"{prefix}_sample_for") != state.sample_name():
        ss[f"{prefix}_sample"] = state.sample_name()
        ss[f"{prefix}_sample_for"] = state.sample_name()
    name = st.selectbox("Sample", sample_streams.names(), key=f"{prefix}_sample")
    smp = sample_streams.load(name)
    st.caption(smp.description)
    return smp, runner.Source("sample", name, str(smp.path), "csv")
