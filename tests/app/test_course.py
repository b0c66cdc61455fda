"""The course on the Learn page (app/course.py, app/course_views.py, app/course_exercises.py):
the lesson list and progress in the URL, each exercise kind answered wrong (explained) and
right (accepted), hints one at a time, a teacher's upload (good, and malformed with its line),
and Open in Debug setting the Debug page's pattern, data, engine and step."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.lessons import check_predict, course
from tests.app.test_pattern_editor import type_text

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
LEARN = str(ROOT / "app" / "pages" / "5_Learn.py")
HOME = str(ROOT / "app" / "Home.py")
LESSONS = course(str(ROOT / "lessons"))
BY_ID = {lesson.id: lesson for lesson in LESSONS}


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _learn(lesson: str | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(LEARN, default_timeout=180)
    if lesson:
        at.query_params["lesson"] = lesson
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    _ok(at)
    return at


def _texts(at: AppTest) -> str:
    """Everything shown as markdown, alerts and code in the course tab."""
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [s.value for s in at.success]
    parts += [i.value for i in at.info] + [w.value for w in at.warning] + [c.value for c in at.code]
    return "\n".join(str(p) for p in parts)


def _solved(at: AppTest) -> list[str]:
    return [i for i in str(at.query_params.get("solved", [""])[0] if isinstance(at.query_params.get("solved"), list)
                           else at.query_params.get("solved") or "").split(",") if i]


def test_the_course_lists_every_lesson_in_order_and_opens_the_first():
    at = _learn()
    pick = at.radio(key="crs_pick")
    assert len(pick.options) == len(LESSONS) >= 12
    assert pick.options[1] == f"○ 2. {LESSONS[1].title}"
    assert pick.value == LESSONS[0].id
    assert "1. " in at.header[0].value and LESSONS[0].title in at.header[0].value
    assert at.query_params["lesson"] == [LESSONS[0].id] or at.query_params["lesson"] == LESSONS[0].id
    # the experiments stay on the page, under Explore
    assert [t.label for t in at.tabs] == ["Course", "Explore"]
    assert at.radio(key="lrn_strat_src") is not None


def test_choosing_a_lesson_writes_it_to_the_url():
    at = _learn()
    at.radio(key="crs_pick").set_value("negation").run()
    _ok(at)
    assert "negation" in str(at.query_params["lesson"])
    assert BY_ID["negation"].title in at.header[0].value


def test_predict_by_events_wrong_then_right():
    lesson = BY_ID["seq-and-variables"]
    at = _learn(lesson.id)
    key = f"crs_events_{lesson.id}"
    at.multiselect(key=key).set_value(["1", "2", "3"]).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any(e.value.startswith("Not quite: 1 picked event in no match") for e in at.error)
    shown = _texts(at)
    assert "Why these are no match" in shown and "event 2 is in no match" in shown
    assert "type View" in shown  # the explanation of the wrong guess
    assert lesson.id not in _solved(at)
    at.multiselect(key=key).set_value(["1", "3", "4", "5"]).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any("Accepted" in s.value for s in at.success)
    assert lesson.id in _solved(at)
    assert at.radio(key="crs_pick").format_func(lesson.id).startswith("✓")


def test_predict_a_count_wrong_then_right():
    lesson = BY_ID["partitions"]
    expected = check_predict(lesson, 0).expected_count
    at = _learn(lesson.id)
    at.number_input(key=f"crs_count_{lesson.id}").set_value(expected + 3).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any(str(expected + 3) in e.value for e in at.error), [e.value for e in at.error]
    at.number_input(key=f"crs_count_{lesson.id}").set_value(expected).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any("Accepted" in s.value for s in at.success)
    assert lesson.id in _solved(at)


def test_predict_a_value():
    lesson = BY_ID["aggregation"]
    value = check_predict(lesson, 0).expected_value
    at = _learn(lesson.id)
    at.text_input(key=f"crs_value_{lesson.id}").input(str(value)).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any("Accepted" in s.value for s in at.success)


def test_reveal_draws_the_matches_on_the_timeline():
    lesson = BY_ID["seq-and-variables"]
    at = _learn(lesson.id)
    before = at.get("plotly_chart")[0].proto.spec
    assert "match 1" not in before
    at.button(key=f"crs_reveal_button_{lesson.id}").click().run()
    _ok(at)
    assert any("The answer: 3 matches" in i.value for i in at.info)
    after = at.get("plotly_chart")[0].proto.spec
    assert "match 1" in after and "match 3" in after and "match 4" not in after


def test_write_wrong_shows_the_first_differing_match_then_right_is_accepted():
    lesson = BY_ID["predicates"]
    at = _learn(lesson.id)
    key = f"crs_editor_{lesson.id}"
    type_text(at, lesson.pattern, key).run()
    _ok(at)
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any(e.value.startswith("Not yet: a different match") for e in at.error)
    shown = _texts(at)
    assert "The first different match" in shown and "found by your pattern only" in shown
    type_text(at, lesson.exercise.reference, key).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any("Accepted" in s.value and "hidden variations" in s.value for s in at.success)
    assert lesson.id in _solved(at)


def test_write_a_pattern_that_does_not_parse_names_its_line():
    lesson = BY_ID["kleene"]
    at = _learn(lesson.id)
    type_text(at, "PATTERN SEQ(A a,\n  B b", f"crs_editor_{lesson.id}").run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any("(line 2" in e.value for e in at.error), [e.value for e in at.error]


def test_choose_wrong_then_right():
    lesson = BY_ID["strategies"]
    wrong = next(o for o in lesson.exercise.options if o != lesson.exercise.answer)
    at = _learn(lesson.id)
    at.radio(key=f"crs_option_{lesson.id}").set_value(wrong).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any(e.value.startswith(f"Not this one: {wrong} gives") for e in at.error), [e.value for e in at.error]
    at.radio(key=f"crs_option_{lesson.id}").set_value(lesson.exercise.answer).run()
    at.button(key=f"crs_check_{lesson.id}").click().run()
    _ok(at)
    assert any("Accepted" in s.value for s in at.success)
    table = next(d.value for d in at.dataframe if "option" in d.value.columns)
    assert sorted(table["option"]) == sorted(lesson.exercise.options)


def test_hints_come_one_at_a_time():
    lesson = BY_ID["negation"]
    assert len(lesson.hints) >= 2
    at = _learn(lesson.id)
    assert not [i for i in at.info if i.value == lesson.hints[0]]
    at.button(key=f"crs_hint_button_{lesson.id}").click().run()
    shown = [i.value for i in at.info]
    assert lesson.hints[0] in shown and lesson.hints[1] not in shown
    at.button(key=f"crs_hint_button_{lesson.id}").click().run()
    shown = [i.value for i in at.info]
    assert lesson.hints[1] in shown


def test_progress_comes_back_from_the_url():
    at = _learn("windows", solved="events-and-streams,seq-and-variables,no-such-lesson")
    assert at.radio(key="crs_pick").value == "windows"
    fmt = at.radio(key="crs_pick").format_func
    assert fmt("events-and-streams").startswith("✓") and fmt("windows").startswith("○")
    assert _solved(at) == ["events-and-streams", "seq-and-variables"]
    assert "2 of" in at.get("progress")[0].proto.text


def test_a_link_to_a_missing_lesson_says_so():
    at = _learn("no-such-lesson")
    assert any("no-such-lesson" in w.value for w in at.warning)
    assert at.radio(key="crs_pick").value == LESSONS[0].id


GOOD = (ROOT / "lessons" / "02-seq-and-variables.md").read_text().replace(
    'id = "seq-and-variables"', 'id = "my-own-lesson"').replace('title = "SEQ and variables"',
                                                               'title = "My own lesson"').replace("order = 2",
                                                                                                  "order = 99")


def test_a_teachers_lesson_is_added_for_the_session():
    at = _learn()
    at.file_uploader(key="crs_upload").set_value(("mine.md", GOOD.encode(), "text/markdown")).run()
    _ok(at)
    assert at.radio(key="crs_pick").options[-1] == f"○ {len(LESSONS) + 1}. My own lesson"
    assert at.radio(key="crs_pick").value == "my-own-lesson"
    assert "My own lesson" in at.header[0].value
    assert any("?lesson=my-own-lesson" in s.value for s in at.success)
    assert "my-own-lesson" in str(at.query_params["lesson"])


def test_a_malformed_lesson_names_its_line():
    at = _learn()
    bad = GOOD.replace("order = 99", 'order = "ninety-nine"')
    at.file_uploader(key="crs_upload").set_value(("bad.md", bad.encode(), "text/markdown")).run()
    _ok(at)
    assert any("cannot be used" in e.value for e in at.error)
    assert any("**line 4**" in m.value and "integer" in m.value for m in at.markdown)
    assert len(at.radio(key="crs_pick").options) == len(LESSONS)


def test_open_in_debug_sets_the_lesson_pattern_data_engine_and_step():
    lesson = BY_ID["seq-and-variables"]
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    at.radio(key="crs_pick").set_value(lesson.id).run()
    at.button(key=f"crs_debug_{lesson.id}").click().run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert at.session_state["cep_text"].strip() == lesson.pattern.strip()
    assert at.radio(key="dbg_source").value == "lesson"
    assert at.selectbox(key="dbg_lesson").value == lesson.id
    assert at.session_state["dbg_engine"] == lesson.engine
    assert at.session_state["dbg_step"] == 2  # the first match (login 1, purchase 3) completes at event 3
    assert "lesson" in str(at.query_params["data"])


def test_open_in_debug_from_a_choose_exercise_applies_the_chosen_engine():
    lesson = BY_ID["evaluation-order"]
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    at.radio(key="crs_pick").set_value(lesson.id).run()
    at.radio(key=f"crs_option_{lesson.id}").set_value("lazy-chain").run()
    at.button(key=f"crs_debug_{lesson.id}").click().run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert at.selectbox(key="dbg_engine").value == "lazy-chain"
    assert at.selectbox(key="dbg_lesson").value == lesson.id


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in LESSONS])
def test_every_lesson_speaks_plain_words_outside_in_the_papers(lesson_id):
    import re

    from tests.app.test_plain_words import JARGON
    from tests.app.test_plain_words import _texts as page_texts

    at = _learn(lesson_id)
    lesson = BY_ID[lesson_id]
    for _ in lesson.hints:
        at.button(key=f"crs_hint_button_{lesson_id}").click().run()
    _ok(at)
    tab = at.tabs[0]  # the course (Explore is checked by tests/app/test_plain_words.py)
    shown = [(t, p) for t, p in page_texts(tab)]
    offenders = [(pat, t[:160]) for t, papers in shown if not papers for pat in JARGON if re.search(pat, t)]
    assert not offenders, offenders
    if lesson.papers.strip():
        assert any(e.label == "In the papers" for e in tab.expander)


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in LESSONS])
def test_every_lesson_opens_in_debug_on_its_own_stream(lesson_id):
    from engine.lessons import lesson_events

    lesson = BY_ID[lesson_id]
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    at.radio(key="crs_pick").set_value(lesson_id).run()
    at.button(key=f"crs_debug_{lesson_id}").click().run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert not at.error, [e.value for e in at.error]
    if lesson.pattern.lstrip().upper().startswith("SELECT"):  # a query: the SQL debugger on the lesson's table
        assert at.session_state["lang"] == "sql" and at.session_state["sql_text"] == lesson.pattern.strip()
        assert any(c.value.startswith(f"Table `the lesson {lesson.title}`: {len(lesson_events(lesson))} rows")
                   for c in at.caption)
        return
    assert at.selectbox(key="dbg_lesson").value == lesson_id
    assert any(c.value.startswith(f"{len(lesson_events(lesson))} events of the lesson") for c in at.caption)


def test_reveal_a_write_exercise_shows_an_answer_and_a_choose_exercise_its_option():
    lesson = BY_ID["and-or"]
    at = _learn(lesson.id)
    at.button(key=f"crs_reveal_button_{lesson.id}").click().run()
    _ok(at)
    assert any(c.value == lesson.exercise.reference.strip() for c in at.code)
    lesson = BY_ID["windows"]
    at = _learn(lesson.id)
    at.button(key=f"crs_reveal_button_{lesson.id}").click().run()
    _ok(at)
    assert any(f"The answer: {lesson.exercise.answer}." in i.value for i in at.info)
    assert lesson.id not in _solved(at)  # revealed is not solved


def test_the_editor_starts_with_the_lessons_pattern_to_change():
    from tests.app.test_pattern_editor import editor_args

    lesson = BY_ID["predicates"]
    at = _learn(lesson.id)
    assert editor_args(at, f"crs_editor_{lesson.id}")["text"] == (lesson.exercise.start or lesson.pattern.strip())


@pytest.mark.parametrize("button, mode, pair, source", [
    ("lrn_strat_debug", "strategy", ("skip_till_next_match", "skip_till_any_match"), "sample"),
    ("lrn_lazy_debug", "engine", ("lazy-chain", "eager"), "generated"),
])
def test_the_explore_experiments_open_debug_side_by_side(button, mode, pair, source):
    """Every example has its step-through: the strategies and the evaluation-order experiments open
    the Debug page on their pattern and stream with the two strategies / engines side by side."""
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    _ok(at)
    at.button(key=button).click().run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert at.radio(key="dbg_source").value == source
    assert at.session_state["dbg_sbs_mode"] == mode
    assert (at.session_state[f"dbg_sbs_{mode}_a"], at.session_state[f"dbg_sbs_{mode}_b"]) == pair
    assert at.session_state["dbg_sbs_pair"] is not None  # the pair is stepped at once
    assert str(at.query_params["sbs"]).strip("[]'") == f"{mode}:{pair[0]}:{pair[1]}"


def test_the_match_windows_experiment_opens_debug_on_its_windows():
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    at.button(key="mw_learn_debug").click().run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert at.session_state["dbg_match_windows"] == "on"
    assert at.radio(key="dbg_source").value == "sample" and at.session_state["dbg_sample"] == "chemo"


def test_the_preferment_experiment_opens_the_query_debugger():
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    at.button(key="lrn_sql_debug_B+?").click().run()
    _ok(at)
    if at.title[0].value != "Debug":  # the switch happens on the run after the button's callback
        at.run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert at.session_state["lang"] == "sql" and "PATTERN (A B+? C)" in at.session_state["sql_text"]


@pytest.mark.parametrize("lesson_id, axis", [("strategies", "strategy"), ("evaluation-order", "engine")])
def test_a_choose_lesson_steps_two_options_side_by_side(lesson_id, axis):
    lesson = BY_ID[lesson_id]
    at = AppTest.from_file(HOME, default_timeout=180)
    at.run()
    at.switch_page("pages/5_Learn.py").run()
    at.radio(key="crs_pick").set_value(lesson.id).run()
    at.button(key=f"crs_sbs_{lesson.id}").click().run()
    _ok(at)
    assert at.title[0].value == "Debug"
    assert at.radio(key="dbg_source").value == "lesson"
    assert at.session_state["dbg_sbs_mode"] == axis
    options = list(lesson.exercise.options)
    assert (at.session_state[f"dbg_sbs_{axis}_a"], at.session_state[f"dbg_sbs_{axis}_b"]) == (options[0], options[1])
    assert at.session_state["dbg_sbs_pair"] is not None
