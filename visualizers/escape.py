"""Escaping for every place the app shows text it did not write itself.

Pattern text, variable and type names, string literals, event ids, types, attribute
values, partition keys, file names and error messages come from people and files the
app does not trust. Each output context interprets some text as markup; this module has
one function per context, each returning text that the context shows *literally*:

* :func:`markdown` for Streamlit markdown (``st.markdown``, ``st.caption``, ``st.info`` /
  ``st.error`` / ``st.warning`` / ``st.success``, ``st.toast``, widget and expander labels,
  ``st.radio`` options) and the Design canvas' node text (react-markdown with raw HTML);
* :func:`code` for a value shown as inline code inside such markdown;
* :func:`message` for a message that marks names with backticks (as the engine does);
* :func:`html` for text put into HTML (``st.html``, ``unsafe_allow_html``, SVG);
* :func:`plotly` for plotly text: trace ``text`` / ``hovertext``, annotations, axis and
  legend titles, which plotly reads as a subset of HTML (``<a href>``, ``<br>``, ``<b>``,
  ``<span style>``) with HTML entities.

``st.code``, ``st.text``, ``st.dataframe`` / ``st.table`` cells and ``st.selectbox`` /
``st.multiselect`` options show text as it is and need none of these.

This module imports neither streamlit nor plotly.
"""
from __future__ import annotations

import html as _html
import re
from typing import Any

#: An invisible character that joins its neighbours (no line break, no width). It is put
#: where GitHub-flavoured markdown would otherwise turn plain text into a link (``www.``,
#: ``http://``, ``name@host.example``) or where Streamlit would turn it into an emoji or an
#: icon (``:smile:``, ``:material/home:``): those are found in the text *after* the markdown
#: is parsed, so a backslash escape cannot stop them.
WORD_JOINER = "\u2060"

_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")
# where a joiner goes (in the raw text, before backslash escaping)
_AUTOLINK_SPOTS = re.compile(
    r"(?i)(?<=www)(?=\.)"          # www.host
    r"|(?<=:)(?=//)"               # scheme://
    r"|(?<=@)(?=[\w-]+\.)"         # name@host.tld
    r"|(?<=:)(?=[\w+-][\w+-]*:)"   # :emoji:
    r"|(?<=:)(?=material/)")       # :material/icon:


def _plain(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    return _LINE_BREAKS.sub(" ", text)


def _join_autolinks(text: str) -> str:
    return _AUTOLINK_SPOTS.sub(WORD_JOINER, text)


#: Characters escaped wherever they stand: each can start markup in the middle of a line.
_ALWAYS = frozenset("\\`*[]<$~|")
_ENTITY = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)")
_LINE_START = re.compile(r"^([ \t]*)([-+>=]|#(?=#{0,5}(?:[ \t]|$))|[0-9]{1,9}(?=[.)](?:[ \t]|$)))")


def markdown(value: Any) -> str:
    """``value`` as markdown text that shows it literally, on one line.

    Backslash escapes (CommonMark: an escaped ASCII punctuation character is always shown
    as itself) go where a character can start markup: everywhere for `` ` `` ``*`` ``[``
    ``]`` ``<`` ``$`` ``~`` ``|`` and ``\\`` (code, emphasis, links and images, raw HTML,
    math, strikethrough, tables); ``_`` unless it stands between two letters or digits
    (there it is never emphasis); ``&`` when it starts a character reference; ``:`` before
    a letter (Streamlit's ``:red[...]`` and ``:material/...:`` directives); and at the start
    ``#`` ``>`` ``-`` ``+`` ``=`` and ``1.`` / ``1)`` (headings, quotes, lists, and a
    setext underline when lines are joined). Line breaks become
    spaces (a blank line would start a new block). Autolinks and emoji short codes get a
    :data:`WORD_JOINER` (see there). The rest (``.`` ``(`` ``!`` ``'`` ...) cannot start
    markup once those are escaped, and stays as it is so that messages stay readable."""
    text = _join_autolinks(_plain(value))
    out: list[str] = []
    last = len(text) - 1
    for k, ch in enumerate(text):
        if ch in _ALWAYS:
            out.append("\\" + ch)
        elif ch == "_":
            inside_word = 0 < k < last and text[k - 1].isalnum() and text[k + 1].isalnum()
            out.append("_" if inside_word else "\\_")
        elif ch == "&" and _ENTITY.match(text, k):
            out.append("\\&")
        elif ch == ":" and k < last and text[k + 1].isascii() and text[k + 1].isalpha():
            out.append("\\:")
        else:
            out.append(ch)
    escaped = "".join(out)
    m = _LINE_START.match(escaped)
    if m:
        lead, marker = m.group(1), m.group(2)
        if marker[0].isdigit():  # ``1.`` / ``1)``: escape the ``.`` or ``)`` after the digits
            cut = len(lead) + len(marker)
            escaped = escaped[:cut] + "\\" + escaped[cut:]
        else:
            escaped = lead + "\\" + escaped[len(lead):]
    return escaped


def code(value: Any) -> str:
    """``value`` as an inline code span that shows it literally.

    Inside a code span markdown shows the characters as they are (no emphasis, links,
    HTML or math), until a run of backticks as long as the fence: the fence is one
    backtick longer than the longest run in ``value``, so a backtick in the value never
    closes the span. Line breaks become spaces (a blank line would end the span's
    paragraph and let the rest be read as markdown)."""
    text = _plain(value)
    # Streamlit rewrites ``:material/`` in the source, inside code spans too
    text = text.replace(":material/", ":" + WORD_JOINER + "material/")
    if not text:
        return "` `"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both ends have one: pad so that a
    # value that starts or ends with a backtick or a space keeps it
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")
                                                     and text.strip(" ")):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def message(value: Any) -> str:
    """A message (an error, a warning, a note) as markdown that shows it literally, except
    that its names between single backticks (``unknown attribute `prise` ``, as the engine
    and the app write them) are shown as inline code. Every piece goes through
    :func:`markdown` or :func:`code`, so a backtick inside a hostile name can only move
    where a code span starts, never let any of the text be read as markup. Line breaks
    become spaces (show caret lines with ``st.code``)."""
    pieces = _plain(value).split("`")
    if len(pieces) % 2 == 0:  # an odd number of backticks: the last one is plain text
        pieces[-2:] = [pieces[-2] + "`" + pieces[-1]]
    return "".join(code(piece) if k % 2 else markdown(piece) for k, piece in enumerate(pieces))


def html(value: Any) -> str:
    """``value`` as HTML text (element content or a quoted attribute value): ``& < > " '``
    and line breaks become character references (so that HTML put into markdown, as
    ``st.markdown(..., unsafe_allow_html=True)`` does, never holds a blank line, which would
    end the HTML block and let the rest be read as markdown)."""
    text = _html.escape(value if isinstance(value, str) else str(value), quote=True)
    return text.replace("\r", "&#13;").replace("\n", "&#10;")


def plotly(value: Any) -> str:
    """``value`` as plotly text (labels, hover text, annotations, titles). Plotly reads
    ``<br>``, ``<b>``, ``<i>``, ``<sub>``, ``<sup>``, ``<span style>`` and ``<a href>`` tags and
    HTML entities in these strings; ``& < >`` become entities, which plotly shows as the
    characters. Line breaks stay as they are (plotly does not break lines on them)."""
    text = value if isinstance(value, str) else str(value)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape_markdown(text: str) -> str:
    """The inverse of :func:`markdown` (what the markdown shows): backslash escapes of
    ASCII punctuation removed and word joiners dropped. For reading back text a person
    edited on the canvas, and for tests."""
    out = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    return out.replace(WORD_JOINER, "")


__all__ = ["markdown", "code", "message", "html", "plotly", "unescape_markdown", "WORD_JOINER"]
