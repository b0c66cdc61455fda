"""Figures that can leave the app: a plotly chart with its caption, downloadable as SVG or PNG.

:func:`show` draws a figure with its caption written into the figure (a line of text under
the plot, so the caption is in every image exported from it: a slide gets the figure and
what it shows together) and the chart's toolbar (the modebar, on hover) set up so that its
camera button downloads the figure, caption included, under a meaningful file name.

The export happens in the browser, by plotly.js itself (no server-side image library:
kaleido is not installed, and the app makes no network calls). plotly.js exports one format
per camera button (``toImageButtonOptions``), so a small choice under the chart, *SVG* or
*PNG*, sets which one the camera gives; SVG by default (it scales on a slide).
"""
from __future__ import annotations

import re
import textwrap
from typing import Any

import streamlit as st

from visualizers import escape

__all__ = ["show", "format_control", "config", "with_caption", "file_stem", "FORMATS", "CAPTION_NAME"]

FORMATS = ("svg", "png")
FORMAT_TITLES = {"svg": "SVG", "png": "PNG"}
PNG_SCALE = 2             # PNG at twice the on-screen size (sharp on a projector)
CAPTION_NAME = "figure-caption"   # the annotation's name (tests and a later edit find it by it)
CAPTION_CHARS = 110       # characters per caption line in the figure
CAPTION_LINE_PX = 16      # px per caption line (the bottom margin grows by this much per line)
DEFAULT_BOTTOM = 80       # plotly's bottom margin when a figure sets none


def file_stem(name: str) -> str:
    """A safe file name stem: letters, digits, ``-`` and ``_`` (others become ``-``), at most
    80 characters; ``figure`` when nothing is left."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:80]
    return stem or "figure"


def config(file_name: str, fmt: str = "svg", **extra: Any) -> dict[str, Any]:
    """The plotly.js config: no plotly logo, the camera downloads ``file_name`` (no extension:
    plotly adds it) as ``fmt`` (``svg`` or ``png``, at :data:`PNG_SCALE`)."""
    fmt = fmt if fmt in FORMATS else "svg"
    options: dict[str, Any] = {"format": fmt, "filename": file_stem(file_name)}
    if fmt == "png":
        options["scale"] = PNG_SCALE
    return {"displaylogo": False, "toImageButtonOptions": options, **extra}


def with_caption(fig: Any, caption: str, keep_height: bool = False) -> Any:
    """``fig`` with ``caption`` written under its plot (escaped for plotly, wrapped; the
    bottom margin, and the height when the figure has one, grow to hold it; with
    ``keep_height`` the height stays and the plot gives the caption its room). A figure that
    already has the caption is returned unchanged (a rerun draws the same figure again)."""
    if not caption:
        return fig
    if any(getattr(a, "name", None) == CAPTION_NAME for a in fig.layout.annotations or ()):
        return fig
    lines = textwrap.wrap(caption, CAPTION_CHARS) or [caption]
    text = "<br>".join(escape.plotly(line) for line in lines)
    bottom = fig.layout.margin.b if fig.layout.margin.b is not None else DEFAULT_BOTTOM
    extra = CAPTION_LINE_PX * len(lines) + 10
    fig.add_annotation(name=CAPTION_NAME, text=text, xref="paper", yref="paper", x=0, y=0, xanchor="left",
                       yanchor="top", yshift=-bottom, showarrow=False, align="left",
                       font={"size": 12, "color": "#555"})
    fig.update_layout(margin={"b": bottom + extra})
    if fig.layout.height is not None and not keep_height:
        fig.update_layout(height=fig.layout.height + extra)
    return fig


def show(fig: Any, caption: str, key: str, file_name: str, *, where: Any = None, width: Any = "stretch",
         modebar: bool = True, format_key: str | None = None, **chart: Any) -> Any:
    """Draw ``fig`` (into ``where``, a column or container; the page by default) with
    ``caption`` in it and the camera downloading ``file_name`` as the format chosen under the
    chart (session key ``<key>_format``), or, with ``format_key``, as the page-wide choice that
    :func:`format_control` draws once (no control under the chart, and the figure keeps its
    height: a page of several figures stays short). ``chart``: more ``st.plotly_chart`` arguments (``on_select``,
    ``selection_mode`` ...). Returns what ``st.plotly_chart`` returns."""
    box = where if where is not None else st
    fmt_key = format_key or f"{key}_format"
    fmt = st.session_state.get(fmt_key) or "svg"
    cfg = config(file_name, fmt, **({} if modebar else {"displayModeBar": False}))
    got = box.plotly_chart(with_caption(fig, caption, keep_height=format_key is not None), width=width, key=key,
                           config=cfg, **chart)
    if modebar and format_key is None:
        left, right = box.columns([2, 5], vertical_alignment="center")
        _format_choice(left, fmt_key)
        right.caption(f"The camera in the chart's toolbar downloads this figure with its caption as "
                      f"{escape.markdown(file_stem(file_name))}.{fmt}.")
    return got


def _format_choice(where: Any, key: str) -> None:
    where.segmented_control("Download as", list(FORMATS), key=key, default="svg",
                            format_func=FORMAT_TITLES.get, label_visibility="collapsed",
                            help="the format the camera in the chart's toolbar downloads (hover over the chart)")


def format_control(key: str, where: Any = None) -> None:
    """One choice of SVG or PNG for every figure of a page drawn with ``format_key=key``."""
    box = where if where is not None else st
    left, right = box.columns([1, 4], vertical_alignment="center")
    _format_choice(left, key)
    right.caption("The camera in each chart's toolbar (hover over a chart) downloads it with its caption in this "
                  "format.")
