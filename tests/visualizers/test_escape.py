"""visualizers.escape: one function per output context, each showing hostile text literally.

No markdown renderer is installed next to the app (Streamlit renders in the browser), so the
markdown checks are structural: every character that CommonMark, GitHub-flavoured markdown,
Streamlit or the canvas' react-markdown reads as markup comes out escaped, and undoing the
escapes gives back the text; tests/app/browser/test_hostile.py checks the rendering in chromium."""
from __future__ import annotations

import html as std_html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from visualizers import escape

HOSTILE = [
    '<iframe srcdoc="<script>top.document.body.dataset.pwned=1</script>"></iframe>',
    "<img src=x onerror=alert(1)>",
    "![x](https://evil.example/p.png)",
    "[link](javascript:alert(1))",
    "q` <iframe srcdoc=x></iframe> `",
    "``double`` and `single`",
    "**bold** _it_ ~~gone~~",
    "$x^2$ and $$y$$",
    ":red[x] :material/home: :smile:",
    "line one\nline two\r\n\r\nthird\rfourth",
    "# heading",
    "- item",
    "+ item",
    "1. item",
    "> quote",
    "a | b\n--|--\n1 | 2",
    "https://evil.example/p.png www.evil.example mail@evil.example",
    "&lt;b&gt; &amp; &#60;",
    "\\`escaped\\` \\\\",
    "",
    " ",
    "`",
    " x ",
    "plain",
]

def _unescaped(md: str) -> list[str]:
    """Characters in ``md`` that could start markup and have no backslash before them: code,
    emphasis, links, images, HTML, math, strikethrough, tables anywhere; ``_`` that is not
    inside a word; an entity; a directive (``:`` before a letter); a heading, quote or list
    marker at the start."""
    out = []
    shown = []  # (character, escaped?)
    k = 0
    while k < len(md):
        if md[k] == "\\" and k + 1 < len(md):
            shown.append((md[k + 1], True))
            k += 2
            continue
        shown.append((md[k], False))
        k += 1
    for j, (ch, esc) in enumerate(shown):
        if esc:
            continue
        prev = shown[j - 1][0] if j else ""
        nxt = shown[j + 1][0] if j + 1 < len(shown) else ""
        if ch in "`*[]<$~|\\":
            out.append(ch)
        elif ch == "_" and not (prev.isalnum() and nxt.isalnum()):
            out.append(ch)
        elif ch == "&" and re.match(r"&(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);", "".join(c for c, _ in shown[j:j + 40]),
                                    re.I):
            out.append(ch)
        elif ch == ":" and nxt.isascii() and nxt.isalpha():
            out.append(ch)
    plain = "".join(c if not e else "\x00" for c, e in shown)
    if re.match(r"[ \t]*([-+>=]|#{1,6}([ \t]|$)|\d+[.)]([ \t]|$))", plain):
        out.append("line start")
    return out


def _one_line(text: str) -> str:
    return re.sub(r"\r\n|[\r\n]", " ", text)


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_escapes_every_markup_character(text):
    md = escape.markdown(text)
    assert _unescaped(md) == []
    assert "\n" not in md and "\r" not in md
    assert escape.unescape_markdown(md) == _one_line(text)


@pytest.mark.parametrize("text", ["https://evil.example/p", "www.evil.example", "me@evil.example",
                                  ":smile:", ":material/home:"])
def test_markdown_breaks_autolinks_and_short_codes(text):
    md = escape.markdown(text)
    assert escape.WORD_JOINER in md
    shown = md.replace("\\", "")
    assert not re.search(r"(?i)https?://|www\.|@[\w-]+\.|:[\w+-]+:", shown)
    assert escape.unescape_markdown(md) == text


def test_markdown_of_non_strings():
    assert escape.markdown(12) == "12"
    assert escape.markdown(1.5) == "1.5"
    assert escape.markdown(None) == "None"


@pytest.mark.parametrize("text,md", [
    ("skip_till_any_match", "skip_till_any_match"),
    ("a.x > 5 (did you mean b?)", "a.x > 5 (did you mean b?)"),
    ("_x_ *y*", "\\_x\\_ \\*y\\*"),
    ("1. item", "1\\. item"),
    ("12) item", "12\\) item"),
    ("1.5 and #3", "1.5 and #3"),
    ("#3 ##", "#3 ##"),
    ("---", "\\---"),
    ("===", "\\==="),
    ("- item", "\\- item"),
    ("  # heading", "  \\# heading"),
    ("> quote", "\\> quote"),
    ("R&D &amp; &#60;", "R&D \\&amp; \\&#60;"),
    (":red[x] at 10:30", "\\:red\\[x\\] at 10:30"),
    ("![x](y)", "!\\[x\\](y)"),
])
def test_markdown_escapes_only_what_starts_markup(text, md):
    assert escape.markdown(text) == md


def _code_span_content(span: str) -> str:
    """What CommonMark shows for a code span written as ``span`` (one span, whole string)."""
    fence = re.match(r"`+", span).group(0)
    assert span.endswith(fence) and len(span) > 2 * len(fence)
    inner = span[len(fence):-len(fence)]
    # the fence must not occur inside (a run of exactly that length would close the span)
    assert not re.search(r"(?<!`)" + fence + r"(?!`)", inner)
    assert "\n" not in inner and "\r" not in inner
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    return inner


@pytest.mark.parametrize("text", HOSTILE)
def test_code_span_shows_the_value_and_cannot_be_closed(text):
    span = escape.code(text)
    shown = _code_span_content(span)
    expected = _one_line(text) or " "
    assert shown.replace(escape.WORD_JOINER, "") == expected


def test_code_span_fence_is_longer_than_any_backtick_run():
    assert escape.code("a```b") == "````a```b````"
    assert escape.code("`x`") == "`` `x` ``"
    assert escape.code("a.x > 1") == "`a.x > 1`"


@pytest.mark.parametrize("text", HOSTILE)
def test_html_has_no_raw_markup(text):
    out = escape.html(text)
    assert not re.search(r"[<>\"'\r\n]", out)
    assert std_html.unescape(out) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_plotly_has_no_tags_and_entities_decode_back(text):
    out = escape.plotly(text)
    assert "<" not in out and ">" not in out
    assert not re.search(r"&(?!amp;|lt;|gt;)", out)  # every & starts one of ours
    assert out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == text


@settings(max_examples=200, deadline=None)
@given(hs.text(alphabet=hs.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40))
def test_round_trips_on_any_text(text):
    md = escape.markdown(text)
    assert _unescaped(md) == []
    expected = re.sub(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]", " ", text).replace(escape.WORD_JOINER, "")
    assert escape.unescape_markdown(md) == expected
    span = escape.code(text)
    assert _code_span_content(span)
    assert std_html.unescape(escape.html(text)) == text


def _message_shown(md: str) -> str:
    """What markdown built by ``escape.message`` shows: code spans and escaped text in turn."""
    out, k = [], 0
    while k < len(md):
        if md[k] == "`":
            fence = re.match(r"`+", md[k:]).group(0)
            end = md.index(fence, k + len(fence))
            while md[end + len(fence):end + len(fence) + 1] == "`":  # a longer run is not the fence
                end = md.index(fence, end + 1)
            out.append(_code_span_content(md[k:end + len(fence)]))
            k = end + len(fence)
        else:
            nxt = md.find("`", k)
            while nxt > 0 and md[nxt - 1] == "\\" and (nxt - k) and not _odd_backslashes(md, k, nxt):
                nxt = md.find("`", nxt + 1)
            nxt = len(md) if nxt < 0 else nxt
            plain = md[k:nxt]
            assert _unescaped(plain) == []
            out.append(escape.unescape_markdown(plain))
            k = nxt
    return "".join(out).replace(escape.WORD_JOINER, "")


def _odd_backslashes(md: str, start: int, at: int) -> bool:
    n = 0
    while at - 1 - n >= start and md[at - 1 - n] == "\\":
        n += 1
    return n % 2 == 0


@pytest.mark.parametrize("text,shown", [
    ("unknown attribute `prise` (did you mean `price`?)", "unknown attribute prise (did you mean price?)"),
    ("bad literal `q` <iframe srcdoc=x></iframe> `` at line 1", "bad literal q <iframe srcdoc=x></iframe>   at line 1"),
    ("odd ` backtick <img src=x>", "odd ` backtick <img src=x>"),
    ("no names here ![x](https://evil.example/p.png)", "no names here ![x](https://evil.example/p.png)"),
])
def test_message_shows_names_as_code_and_the_rest_escaped(text, shown):
    md = escape.message(text)
    assert _message_shown(md) == shown


def test_message_marks_names_as_code():
    assert escape.message("unknown attribute `prise`") == "unknown attribute `prise`"
    assert escape.message("a `b` c*") == "a `b` c\\*"
    assert escape.message("x `<img src=y>` z") == "x `<img src=y>` z"
