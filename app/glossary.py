"""Plain words first: the studio's glossary, hover definitions, and the "In the papers" expander.

Every page speaks plain language first. A word of the trade (run, buffer, strategy, Kleene ...)
is shown with its definition on hover (:func:`term`), every page's sidebar lists the words it
uses (:func:`sidebar`), and the paper references (sections, theorems, the papers' own symbols)
live in one expander per view, labelled "In the papers" (:func:`in_the_papers`), after the plain
explanation.
"""
from __future__ import annotations

import re

import streamlit as st

from visualizers import escape

# word -> what it means, in one or two plain sentences (no paper citation, no symbol)
TERMS: dict[str, str] = {
    "event": "One row of the stream: a type (such as Stock), a time, an id and attributes (such as price).",
    "pattern": "What to look for in the stream: which events, in which order, with which conditions, "
               "within how much time.",
    "match": "A set of events of the stream that together fit the pattern, one event (or several, for a "
             "repeated component) per variable.",
    "variable": "The name a component gives to the event it takes, such as a in Stock a, so that conditions "
                "can refer to it (a.price).",
    "predicate": "A condition on events, such as b.price > a.price; a match must satisfy all of them.",
    "run": "A partial match being built: the matcher follows one run per way the events seen so far could "
           "still become a match.",
    "partial match": "Events that fit the start of the pattern and are waiting for the rest; it becomes a "
                     "match or expires.",
    "buffer": "Where the matcher keeps the events its runs have taken, shared between runs so that each "
              "event is stored once.",
    "automaton": "The pattern compiled into states and moves: each state is a place in the pattern, each "
                 "move says which event may take the run to the next state.",
    "strategy": "Which events a match may skip: strictly consecutive events only, events of the same "
                "partition only, skip to the next fitting event, or any combination of fitting events.",
    "skip_till_any_match": "The strategy that keeps every combination of events that fits: the most "
                           "matches, and the most work.",
    "skip_till_next_match": "The strategy that skips events that do not fit and takes the next one that "
                            "does.",
    "contiguity": "The strategies that allow no gap: every event between the first and the last of a match "
                  "is part of it (in the whole stream, or within its partition).",
    "Kleene": "A component that takes one or more events (Type+ a[]) or zero or more (Type* a[]), such as a "
              "run of rising prices; a[i] is the one being added, a[i-1] the one before.",
    "window": "How far apart the first and last events of a match may be: a time (WITHIN 1 hour) or a "
              "number of events (WITHIN 500 events).",
    "partition": "Matching separately per value of an attribute ([symbol]): every event of a match has the "
                 "same value.",
    "negation": "A component that must not occur (!Type x): a match is refused if such an event lies between "
                "its neighbours.",
    "lazy evaluation": "Building partial matches from the rarest event type first, so fewer useless partial "
                       "matches are made; the matches found are the same.",
    "match window": "The span of the stream that can hold a match starting at an event: events within the "
                    "window of a first event. Cheap tests skip the windows that cannot hold one.",
    "event set": "A pattern whose events may come in any order inside the window (a set, not a sequence).",
    "uncertain timestamp": "An event whose time is only known to lie in an interval [lower, upper], each "
                           "instant with its probability.",
    "possible world": "One choice of an instant for every uncertain event; a result's confidence is the "
                      "probability of the worlds in which it is a match.",
    "confidence": "The probability that a result is a real match, over all the ways the uncertain times "
                  "could have been.",
    "frontier": "The time before which every event has arrived: a result whose events all end before it is "
                "final.",
    "largest uncertainty": "The widest interval of any event: it tells how far back a late event can still "
                           "land, so it sets the frontier.",
    "NELT": "The latest time the next event of a match may take: after it, another candidate would always "
            "lie in between (skip to next match only).",
    "signature": "The events of a result over uncertain times, one per component, without their exact "
                 "instants.",
    "aggregation": "Computing a number over the matches (a count, a sum ...) without building each match.",
    "prefix counter": "A running count of the ways the first events of the pattern have been seen so far; "
                      "the count of matches is read from the last one.",
    "oracle": "A slow, obviously correct matcher the fast engines are checked against.",
    "state guard": "The limit on memory and live runs that stops a run which would grow without bound, with "
                   "a message.",
}

_WORD = {w.lower(): w for w in TERMS}


def definition(word: str) -> str:
    """The plain definition of a glossary word (case-insensitive)."""
    return TERMS[_WORD[word.lower()]]


def term(word: str, shown: str | None = None) -> str:
    """``shown`` (default: the word) with its definition on hover, as HTML for
    ``st.markdown(..., unsafe_allow_html=True)``; both strings escaped."""
    text = shown if shown is not None else word
    return (f'<abbr class="cep-term" title="{escape.html(definition(word))}" '
            f'style="text-decoration: underline dotted; cursor: help">{escape.html(text)}</abbr>')


def words_in(text: str) -> list[str]:
    """The glossary words that occur in ``text`` (whole words, case-insensitive), in glossary order."""
    low = text.lower()
    return [w for w in TERMS if re.search(r"(?<![\w])" + re.escape(w.lower()) + r"s?(?![\w])", low)]


def sidebar(words: list[str] | None = None) -> None:
    """The sidebar's "Words used here": every glossary word (or ``words``) with its definition."""
    with st.sidebar.expander("Words used here", icon=":material/menu_book:"):
        for w in words or list(TERMS):
            st.markdown(f"**{escape.markdown(w)}**: {escape.markdown(definition(w))}")


def in_the_papers(text: str) -> None:
    """The paper references of a view, after its plain explanation, in one expander."""
    with st.expander("In the papers", icon=":material/school:"):
        st.markdown(text)
