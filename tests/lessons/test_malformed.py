"""A malformed lesson file gives problems naming the file and the line, and what was expected."""
from __future__ import annotations

import pytest

from engine.commands.cli import main
from engine.lessons import LessonError, check_lesson, lesson_from_upload, parse_lesson
from tests.lessons.support import VALID, line_of


def test_the_valid_lesson_loads_and_passes():
    lesson = parse_lesson(VALID, "tiny.md")
    assert lesson.id == "tiny" and lesson.hints == ("one", "two")
    assert lesson.text == "A tiny lesson." and lesson.explanation == "1 then 2, and 1 then 4."
    assert lesson.pattern_line == 6
    assert check_lesson(lesson) == []


# (name, old text, new text, the line of the problem: a needle of the broken text, message part)
BROKEN = [
    ("bad header key", 'order = 1', 'order = 1\ntitel = "x"', 'titel = "x"', "unknown key 'titel' in the header; did you mean 'title'?"),
    ("bad stream key", "rows = '''", "sampel = 'x'\nrows = '''", "sampel", "unknown key 'sampel' in [stream]"),
    ("bad exercise key", 'ask = "count"', 'ask = "count"\nanswr = 3', "answr", "unknown key 'answr' in [exercise]"),
    ("missing pattern", "pattern = '''\nPATTERN SEQ(A a, B b)\nWHERE b.x > a.x\n'''\n", "", "CLOSE",
     "the header has no 'pattern'"),
    ("pattern typo", "WHERE b.x > a.x", "WHERE b.x > > a.x", "WHERE b.x > > a.x", "the pattern does not parse (column 13)"),
    ("unknown attribute", "WHERE b.x > a.x", "WHERE b.x > a.y", "WHERE b.x > a.y", "unknown attribute `y`"),
    ("bad inline row", "3,A,3,9", "3,A,3", "3,A,3", "expected 4 values (id, type, ts, x), found 3"),
    ("non-numeric time", "4,B,4,8", "4,B,soon,8", "4,B,soon,8", "the ts must be a number"),
    ("duplicate id", "4,B,4,8", "3,B,4,8", "3,B,4,8", "the id 3 is used twice"),
    ("header without ts", "id,type,ts,x", "id,type,time,x", "id,type,time,x", "no column 'ts'"),
    ("unknown sample", "rows = '''\nid,type,ts,x\n1,A,1,5\n2,B,2,7\n3,A,3,9\n4,B,4,8\n'''", 'sample = "stocks"',
     'sample = "stocks"', "unknown sample 'stocks'"),
    ("unknown generator", "rows = '''\nid,type,ts,x\n1,A,1,5\n2,B,2,7\n3,A,3,9\n4,B,4,8\n'''",
     'generator = "stonks"\nsize = 10', 'generator = "stonks"', "unknown generator 'stonks'"),
    ("unknown exercise kind", 'kind = "predict"', 'kind = "guess"', 'kind = "guess"',
     "unknown exercise kind 'guess'; expected predict, write or choose"),
    ("bad value", "order = 1", "order = \"first\"", "order = \"first\"", "order: input should be a valid integer"),
    ("not TOML", 'title = "Tiny"', 'title = "Tiny', 'title = "Tiny', "the header is not valid TOML"),
    ("header never closed", "+++\nA tiny", "A tiny", "+++", "the header opened here is never closed"),
    ("bad id", 'id = "tiny"', 'id = "Tiny Lesson"', 'id = "Tiny Lesson"', "id: string should match pattern"),
]


@pytest.mark.parametrize("name,old,new,needle,message", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_file_names_the_line_and_what_was_expected(name, old, new, needle, message):
    assert old in VALID
    text = VALID.replace(old, new, 1)
    with pytest.raises(LessonError) as info:
        parse_lesson(text, "broken.md")
    problems = info.value.problems
    assert any(message in p.message for p in problems), [str(p) for p in problems]
    p = next(p for p in problems if message in p.message)
    assert p.file == "broken.md"
    assert p.line == line_of(text, needle), str(p)
    assert str(p).startswith(f"broken.md, line {p.line}: ")


def test_a_pattern_error_on_a_later_line_is_mapped_to_the_file_line():
    text = VALID.replace("WHERE b.x > a.x", "WHERE b.x > a.x\n  AND a.x >< 3")
    with pytest.raises(LessonError) as info:
        parse_lesson(text, "broken.md")
    assert info.value.first.line == line_of(text, "AND a.x >< 3")


def test_a_wrong_predict_answer_stated_in_the_file_is_caught_with_its_line(tmp_path, capsys):
    text = VALID.replace("count = 2", "count = 3")
    lesson = parse_lesson(text, "wrong.md")
    problems = check_lesson(lesson)
    assert [(p.line, p.message) for p in problems] == [
        (line_of(text, "count = 3"), "the file states 3 matches; the engine finds 2")]
    path = tmp_path / "wrong.md"
    path.write_text(text, encoding="utf-8")
    assert main(["lesson", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"wrong.md, line {line_of(text, 'count = 3')}: the file states 3 matches; the engine finds 2" in err


def test_wrong_stated_matches_are_caught():
    text = VALID.replace("count = 2", "matches = [{a = [3], b = [4]}]")
    problems = check_lesson(parse_lesson(text, "wrong.md"))
    assert problems and problems[0].line == line_of(text, "matches = [")
    assert "a=[1]" in problems[0].message and "b=[2]" in problems[0].message


def test_a_choose_answer_that_is_not_the_only_right_option_is_caught():
    text = VALID.replace('kind = "predict"\nask = "count"\ncount = 2',
                         'kind = "choose"\nquestion = "q"\naxis = "window"\noptions = ["2 s", "5 s", "none"]\n'
                         'answer = "2 s"\nasks = "count"\ncount = 2')
    problems = check_lesson(parse_lesson(text, "c.md"))
    assert len(problems) == 1 and problems[0].line == line_of(text, 'answer = "2 s"')
    assert "the options that give what is asked are '5 s', 'none', not only the answer '2 s'" in problems[0].message


def test_an_answer_outside_the_options_and_a_bad_option_are_refused():
    text = VALID.replace('kind = "predict"\nask = "count"\ncount = 2',
                         'kind = "choose"\nquestion = "q"\naxis = "strategy"\noptions = ["skip_till_any", '
                         '"skip_till_any_match"]\nanswer = "x"\ncount = 2')
    with pytest.raises(LessonError) as info:
        parse_lesson(text, "c.md")
    messages = [p.message for p in info.value.problems]
    assert any("the answer 'x' is not one of the options" in m for m in messages)
    assert any("option 'skip_till_any': not a strategy" in m for m in messages)


def test_a_write_reference_with_a_typo_names_its_file_line():
    text = VALID.replace('kind = "predict"\nask = "count"\ncount = 2',
                         "kind = \"write\"\nreference = '''\nPATTERN SEQ(A a, B b)\nWHERE b.x >> a.x\n'''")
    with pytest.raises(LessonError) as info:
        parse_lesson(text, "w.md")
    assert info.value.first.line == line_of(text, "WHERE b.x >> a.x")
    assert "the reference does not parse" in info.value.first.message


def test_a_variation_that_cannot_be_built_is_reported():
    text = VALID.replace('kind = "predict"\nask = "count"\ncount = 2',
                         "kind = \"write\"\nreference = '''\nPATTERN SEQ(A a, B b)\n'''\n\n"
                         "[[exercise.variations]]\nshuffle = [\"nope\"]\nseed = 1")
    problems = check_lesson(parse_lesson(text, "w.md"))
    assert problems and "no event of the stream has the attribute 'nope'" in problems[0].message
    assert problems[0].line == line_of(text, "[[exercise.variations]]")


def test_an_upload_that_is_not_utf8_or_is_empty_is_refused():
    with pytest.raises(LessonError, match="not UTF-8"):
        lesson_from_upload(b"\xff\xfe+++", "up.md")
    with pytest.raises(LessonError, match="the file is empty"):
        lesson_from_upload(b"   \n", "up.md")
    assert lesson_from_upload(VALID.encode("utf-8"), "up.md").source == "up.md"


def test_nothing_in_a_file_is_evaluated(tmp_path):
    """Text that would be code elsewhere stays text: a pattern is parsed by the DSL parser only."""
    marker = tmp_path / "ran"
    text = VALID.replace("WHERE b.x > a.x", f"WHERE __import__('os').mkdir('{marker}')")
    with pytest.raises(LessonError):
        parse_lesson(text, "evil.md")
    assert not marker.exists()


def test_cep_lesson_check_of_a_missing_file_is_an_error(capsys):
    assert main(["lesson", "check", "/nonexistent/lesson.md"]) == 2
    assert "no such lesson file" in capsys.readouterr().err
