"""Patterns never crash: fuzzing the DSL, the printer, the planner and
the matchers with hostile pattern text.

Every input must end in a *clean* outcome: a :class:`DslError` / :class:`PatternError` /
:class:`EngineUnsupported` (with a rendered message), a guard stopping a run
(:class:`StateExplosion`, the oracle's :class:`OracleTooLarge`), or a run. Anything else (a
RecursionError, ValueError, OverflowError, a pydantic error, a failed round trip) fails.
For a pattern that parses, :func:`check_text` also asserts that the printer is the parser's
inverse (``parse(to_text(m)) == m``, the printer is a fixed point, the JSON form round-trips),
that ``planner.reasons`` agrees with ``planner.make_matcher`` for ``auto`` and for one named
engine, and it feeds the matcher a few events made for the pattern.

Inputs come from two generators driven by a ``random.Random`` (hypothesis' controlled one
here, a seeded one in ``benchmarks/fuzz_patterns.py``, which runs the same checks on tens of
thousands of inputs and prints a count table):

- :func:`grammar_text`: random text over the grammar, mostly well formed, with extreme
  numbers, deep nesting and many components around the limits;
- :func:`mutate`: 1-4 mutations (delete, insert a token, duplicate, wrap in nesting, repeat
  a component, swap, extreme number, character noise) of a seed: the presets
  (``sample_streams/presets/*.cep``), the README's patterns and the papers' queries.

The adversarial cases of the issue are unit tests at the end, with the exact message and
position of each refusal.
"""
from __future__ import annotations

import math
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import expr as X
from engine.engines import planner
from engine.dsl import DslError, parse, parse_expr, to_text, tokenize
from engine.events import Event
from engine.match import EngineUnsupported, StateExplosion
from engine.model import (
    MAX_ALTERNATIVES,
    MAX_COMPONENTS,
    MAX_EXPRESSION_NODES,
    MAX_NESTING,
    MAX_PATTERN_LENGTH,
    MAX_PREDICATES,
    Component,
    Group,
    Pattern,
    PatternError,
    Window,
)
from engine.engines.oracle.oracle import OracleTooLarge

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------- seeds


def _readme_patterns() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        if block.lstrip().startswith("PATTERN"):
            out.append(block)
    out += re.findall(r'"(PATTERN [^"]+)"', text)
    out += re.findall(r"^[ \t]+(PATTERN .+)$", text, flags=re.M)
    return out


def _seeds() -> list[str]:
    from tests.queries import paper_queries

    seeds = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "sample_streams" / "presets").glob("*.cep"))]
    seeds += _readme_patterns()
    seeds += list(paper_queries.ALL.values())
    seeds += [
        "PATTERN SEQ(A a, AND(B b, C c), OR(D d, SEQ(E e, F f))) WHERE a.x > 1 WITHIN 10 events",
        "PATTERN SEQ(A a, B* b[], C? c, !D d, E e) WHERE [k] AND b[i].x >= b[i-1].x AND e.y = a.y "
        "WITHIN 5 s OUTPUT NON_OVERLAP RETURN a.x AS ax, e",
        "PATTERN SEQ(A+ a[], B b) WHERE strict_contiguity AND a.len >= 2 AND b.x < max(a[].x) "
        "AGG SUM(b.x) GROUP BY k",
    ]
    return list(dict.fromkeys(s.strip() + "\n" for s in seeds))


SEEDS = _seeds()

# --------------------------------------------------------------------------- vocabulary

TYPES = ["A", "B", "C", "ANY", "Stock"]
ATTRS = ["x", "y", "k", "price", "volume", "symbol", "ts", "from", "type"]
UNIT_WORDS = ["", "ms", "s", "seconds", "min", "hour", "hours", "day", "days", "week", "weeks", "events", "s",
              "events", "parsecs"]
STRATEGIES = ["strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match",
              "skip-till-next-match"]
EXTREME_NUMBERS = [
    "0", "1", "7", "0.5", "1.5e-05", "1e16", "123456789012345678901234567890", "1e300", "1e301", "1e308",
    "1e309", "1e400", "1e-300", "5e-324", "1e-400", "0.0", "0e5", "9" * 300, "1" + "0" * 300, "1" + "0" * 301,
    "9" * 399, "9" * 401, "9" * 5000, "1." + "0" * 397, "0." + "0" * 398 + "1", ".5", "1.", "1e", "1e+",
]
TOKENS = [
    "PATTERN", "SEQ(", "AND(", "OR(", "SEQ", "AND", "OR", "NOT", "WHERE", "WITHIN", "OUTPUT", "AGG", "GROUP BY",
    "RETURN", "AS", "ALL", "NON_OVERLAP", "COUNT", "SUM(", "avg(", "prev(", "len", "true", "false", "i", "last",
    "(", ")", "[", "]", "{", "}", ",", ".", "..", ";", "!", "~", "¬", "?", "+", "*", "-", "/", "%", "=", "==",
    "!=", "<>", "<", "<=", ">", ">=", "'str'", '"dq"', "'it\\'s'", "--", "#", "a", "b", "a[]", "a[i]",
    "a[i-1]", "a[1]", "a[a.len]", "a.x", "b.y", "80%", "-3", "NaN", "inf", "Infinity", "\u00e9", "\x00", "\t",
    "\n", " ", *STRATEGIES, *EXTREME_NUMBERS[:20],
]


def _number(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.55:
        return str(rng.randint(0, 5))
    if r < 0.7:
        return repr(rng.choice([0.5, 1.25, 2.0, 1e-05, 3.75, 1e16, 12345.678, 5e-324, 1e300]))
    if r < 0.9:
        return repr(rng.uniform(0, 1e3))
    return rng.choice(EXTREME_NUMBERS)


# --------------------------------------------------------------------------- grammar generator


class _Gen:
    """Random pattern text over the DSL grammar; knobs push some inputs past the limits."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.vars: list[str] = []
        self.kleene: list[str] = []
        self.n = 0
        self.budget = 60  # nodes: recursion stops (a leaf) once spent, so the text stays small
        deep = rng.random() < 0.12
        self.max_depth = rng.choice([MAX_NESTING - 2, MAX_NESTING, MAX_NESTING + 1, 3 * MAX_NESTING]) if deep else 3
        self.wide = rng.random() < 0.08

    def var(self) -> str:
        self.n += 1
        if self.rng.random() < 0.01 and self.vars:
            return self.rng.choice(self.vars)  # a duplicate variable: a clean error
        return f"v{self.n}"

    def component(self) -> str:
        rng = self.rng
        t = rng.choice(TYPES)
        quant = rng.choice(["", "", "", "+", "*", "?"])
        v = self.var()
        self.vars.append(v)
        if quant in "+*" and quant:
            self.kleene.append(v)
            body = f"{t}{quant} {v}[]"
        else:
            body = f"{t}{quant} {v}"
        r = rng.random() if (not quant or rng.random() < 0.05) else 1.0
        if r < 0.08:
            body = rng.choice(["!", "~", "NOT ", "¬"]) + body
        elif r < 0.11:
            body = f"!({body})"
        return body

    def deeper(self, depth: int, p: float) -> bool:
        """Recurse? Deep mode goes down one path to ``max_depth`` (other children are leaves)."""
        if depth >= self.max_depth or self.budget <= 0:
            return False
        self.budget -= 1
        if self.max_depth > 3:
            return True
        return self.rng.random() < p

    def item(self, depth: int) -> str:
        rng = self.rng
        if self.deeper(depth, 0.3):
            op = rng.choice(["SEQ", "SEQ", "AND", "OR"])
            k = rng.randint(1, 2) if self.max_depth > 3 else rng.randint(1, 4)
            path = rng.randrange(k)
            kids = [self.item(depth + 1) if (j == path or self.max_depth <= 3) else self.component()
                    for j in range(k)]
            return f"{op}(" + ", ".join(kids) + ")"
        return self.component()

    def root(self) -> str:
        rng = self.rng
        if self.wide:
            k = rng.choice([MAX_COMPONENTS - 1, MAX_COMPONENTS, MAX_COMPONENTS + 1, 200])
            return "SEQ(" + ", ".join(self.component() for _ in range(k)) + ")"
        if rng.random() < 0.1:
            return self.component()
        return "SEQ(" + ", ".join(self.item(1) for _ in range(rng.randint(1, 4))) + ")"

    def ref(self) -> str:
        rng = self.rng
        if not self.vars or rng.random() < 0.03:
            return f"zz.{rng.choice(ATTRS)}"  # undefined variable
        v = rng.choice(self.vars)
        attr = rng.choice(ATTRS[:4])
        if v in self.kleene:
            r = rng.random()
            if r < 0.15:
                return f"{v}.len"
            if r < 0.3:
                return f"{rng.choice(['avg', 'sum', 'min', 'max', 'count'])}({v}[{rng.choice(['..i-1', ''])}].{attr})"
            idx = rng.choice(["", "[1]", "[i]", "[i-1]", f"[{v}.len]", "[last]"])
            return f"{v}{idx}.{attr}"
        return f"{v}.{attr}"

    def term(self, depth: int) -> str:
        rng = self.rng
        r = rng.random()
        if self.deeper(depth, 0.4):
            if r < 0.6:
                op = rng.choice(["+", "-", "*", "/", "%"])
                if self.max_depth > 3 and rng.random() < 0.5:
                    return f"{self.leaf()} {op} {self.term(depth + 1)}"
                return f"{self.term(depth + 1)} {op} {self.leaf()}"
            if r < 0.85:
                return "(" + self.term(depth + 1) + ")"
            return rng.choice(["- " + self.term(depth + 1), "-(" + self.term(depth + 1) + ")"])
        return self.leaf()

    def leaf(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            return self.ref()
        if r < 0.85:
            return _number(rng) + ("%" if rng.random() < 0.2 else "")
        return rng.choice(["'p'", "'q'", "true", "false"])

    def pred(self, depth: int) -> str:
        rng = self.rng
        r = rng.random()
        if self.deeper(depth, 0.3):
            if r < 0.4:
                return "NOT " + self.pred(depth + 1)
            other = self.pred(self.max_depth)  # a flat comparison
            return "(" + self.pred(depth + 1) + f" {rng.choice(['AND', 'OR'])} " + other + ")"
        op = rng.choice(['=', '!=', '<', '<=', '>', '>=', '=='])
        return f"{self.term(depth + 1)} {op} {self.term(depth + 1)}"

    def text(self) -> str:
        rng = self.rng
        lines = ["PATTERN " + self.root()]
        clauses = []
        if rng.random() < 0.8:
            conj = []
            if rng.random() < 0.5:
                conj.append(rng.choice(STRATEGIES))
            if rng.random() < 0.3:
                conj.append("[" + ", ".join(rng.sample(ATTRS[:3], rng.randint(1, 2))) + "]")
            conj += [self.pred(0) for _ in range(rng.randint(0, 3))]
            if conj:
                clauses.append("WHERE " + "\n  AND ".join(conj))
        if rng.random() < 0.6:
            clauses.append(f"WITHIN {_number(rng)} {rng.choice(UNIT_WORDS)}".rstrip())
        if rng.random() < 0.15:
            clauses.append(f"OUTPUT {rng.choice(['ALL', 'NON_OVERLAP'])}")
        if rng.random() < 0.15:
            v = rng.choice(self.vars) if self.vars else "a"
            clauses.append(rng.choice(["AGG COUNT", f"AGG SUM({v}.x)", f"AGG MAX({v}.y)", "AGG COUNT GROUP BY k"]))
        if rng.random() < 0.1 and self.vars:
            clauses.append("RETURN " + ", ".join(rng.choice([self.ref(), rng.choice(self.vars)])
                                                for _ in range(rng.randint(1, 2))))
        rng.shuffle(clauses) if rng.random() < 0.1 else None
        return "\n".join(lines + clauses) + "\n"


def grammar_text(rng: random.Random) -> str:
    return _Gen(rng).text()


# --------------------------------------------------------------------------- mutations


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the tokens of ``text`` (a regex fallback when the DSL's
    tokenizer refuses a character)."""
    try:
        return [(t.pos, t.pos + len(t.text), t.kind) for t in tokenize(text) if t.kind != "eof"]
    except DslError:
        return [(m.start(), m.end(), "chunk") for m in re.finditer(r"\w+|\S", text)]


_COMPARISON = re.compile(r"[A-Za-z_]\w*(?:\[[^\]]*\])?\.\w+\s*(?:=|!=|<=|>=|<|>)\s*(?:\d[\w.]*%?|'[^']*'|"
                         r"[A-Za-z_]\w*(?:\[[^\]]*\])?\.\w+)")
_COMPONENT = re.compile(r"(?<=[(,])\s*!?\(?[A-Za-z_]\w*[+*?]?(?:\s+[A-Za-z_]\w*(?:\[\s*\])?)?\)?(?=\s*[,)])")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def mutate(rng: random.Random, text: str, n: int | None = None) -> str:
    for _ in range(n if n is not None else rng.choice([1, 1, 1, 2, 2, 3, 4])):
        text = _mutate_once(rng, text)
    return text


def _wrap(rng: random.Random, text: str, pattern: re.Pattern[str], shapes: list[tuple[str, str]]) -> str | None:
    """Wrap one match of ``pattern`` in k levels of one of ``shapes`` (k around the limit)."""
    found = list(pattern.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    k = rng.choice([1, 3, MAX_NESTING - 3, MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1, 300, 1000])
    left, right = rng.choice(shapes)
    return text[:m.start()] + left * k + m.group() + right * k + text[m.end():]


def _mutate_once(rng: random.Random, text: str) -> str:
    op = rng.choice(["delete", "insert", "insert", "dup", "nest", "repeat", "swap", "number", "number", "char",
                     "case", "nest_pred", "nest_pred", "nest_comp", "chain", "num_value"])
    if op == "nest_pred":
        out = _wrap(rng, text, _COMPARISON, [("(", ")"), ("NOT ", ""), ("NOT (", ")")])
        if out is not None:
            return out
    if op == "nest_comp":
        out = _wrap(rng, text, _COMPONENT, [("SEQ(", ")"), ("AND(", ")"), ("OR(", ")")])
        if out is not None:
            return out
    if op == "chain":  # a long operator chain on a number: `x` -> `x + x + ... + x`
        found = list(_NUMBER.finditer(text))
        if found:
            m = rng.choice(found)
            k = rng.choice([2, MAX_NESTING - 2, MAX_NESTING, 1000])
            sep = rng.choice([" + ", " * ", " - ", " / ", " % "])
            return text[:m.start()] + sep.join([m.group()] * k) + text[m.end():]
    if op == "num_value":  # a number replaced by another finite or extreme value
        found = list(_NUMBER.finditer(text))
        if found:
            m = rng.choice(found)
            return text[:m.start()] + _number(rng) + text[m.end():]
    toks = _spans(text)
    if not toks:
        return text + rng.choice(TOKENS)
    i = rng.randrange(len(toks))
    j = min(len(toks) - 1, i + rng.randint(0, 4))
    a, b = toks[i][0], toks[j][1]
    if op == "delete":
        return text[:a] + text[b:]
    if op == "insert":
        at = rng.choice([a, b])
        return text[:at] + " " + rng.choice(TOKENS) + " " + text[at:]
    if op == "dup":
        return text[:b] + " " + text[a:b] + text[b:]
    if op == "nest":
        k = rng.choice([2, MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1, 200, 1000])
        left, right = rng.choice([("(", ")"), ("NOT ", ""), ("- ", ""), ("SEQ(", ")"), ("OR(", ")"), ("+ ", ""),
                                  ("AND(", ")")])
        return text[:a] + left * k + text[a:b] + right * k + text[b:]
    if op == "repeat":
        m = re.search(r"(SEQ|AND|OR)\(", text, flags=re.I)
        if not m:
            return text
        k = rng.choice([3, MAX_COMPONENTS - 5, MAX_COMPONENTS, 1000])
        comp = rng.choice(["A", "B", "Stock", "A+", "A?", "!C"])
        extra = ", ".join(f"{comp} r{n}{'[]' if comp.endswith('+') else ''}" for n in range(k))
        return text[:m.end()] + extra + ", " + text[m.end():]
    if op == "swap":
        k = rng.randrange(len(toks))
        (s1, e1, _), (s2, e2, _) = sorted([toks[i], toks[k]])
        if e1 > s2:
            return text
        return text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]
    if op == "number":
        nums = [t for t in toks if t[2] == "number"] or [toks[i]]
        s, e, _ = rng.choice(nums)
        return text[:s] + rng.choice(EXTREME_NUMBERS) + rng.choice(["", "", "%", " weeks", " ms"]) + text[e:]
    if op == "char":
        at = rng.randrange(len(text) + 1)
        ch = rng.choice(["(", ")", "'", '"', "[", "]", ",", "\x00", "\u00e9", "\u200b", "\r", "\\", "e", "9", "."])
        return text[:at] + ch + text[at + rng.randint(0, 1):]
    # case
    return text[:a] + text[a:b].swapcase() + text[b:]


# --------------------------------------------------------------------------- events for a pattern


def _attrs_of(m: Pattern) -> list[str]:
    names: set[str] = set(m.equivalence)
    for e in list(m.where) + [r.expr for r in m.returns if r.expr is not None]:
        for n in e.walk():
            if isinstance(n, (X.Ref, X.Agg)):
                names.add(n.attr)
    if m.aggregate is not None:
        names.update(m.aggregate.group_by)
        if m.aggregate.attr:
            names.add(m.aggregate.attr)
    return sorted(names - {"ts", "id", "type", "seq", "lower", "upper"})


def events_for(m: Pattern, rng: random.Random, n: int = 6) -> list[Event]:
    """A few events of the pattern's types (and one foreign type), every attribute the
    pattern mentions set to a small int or, rarely, a string or None; ts non-decreasing."""
    types = sorted({c.type for c in m.components() if c.type != "ANY"}) or ["A"]
    types.append("Zz")
    attrs = _attrs_of(m)
    out = []
    ts = 1
    for i in range(n):
        ts += rng.choice([0, 1, 1, 2, 5])
        vals = {a: rng.choice([0, 1, 2, 2, 3, "p", None]) if rng.random() < 0.1 else rng.randint(0, 3)
                for a in attrs}
        out.append(Event(id=i + 1, type=rng.choice(types), ts=float(ts), seq=i, attrs=vals))
    return out


# --------------------------------------------------------------------------- the check

CLEAN = (DslError, PatternError, EngineUnsupported)
STOPPED = (StateExplosion, OracleTooLarge)


def _run(m: Pattern, engine: str, events: list[Event]) -> str:
    try:
        matcher = planner.make_matcher(m, engine)
    except EngineUnsupported as err:
        assert str(err)
        return "unsupported"
    try:
        for e in events:
            list(matcher.feed(e))
        list(matcher.close())
    except STOPPED as err:
        assert str(err)
        return "stopped"
    return "ran"


def check_text(text: str, rng: random.Random, engines: str = "auto+one") -> str:
    """Outcome of one input: ``error`` (refused with a clean message), ``unsupported`` (no
    engine), ``stopped`` (a guard), or ``ran``. Any other exception propagates; so does an
    AssertionError when the printer, the JSON form or the planner disagree.

    ``engines``: ``auto+one`` runs ``auto`` and one engine drawn from ``rng``; ``all``
    runs ``auto`` and every engine."""
    try:
        m = parse(text)
    except DslError as err:
        msg = str(err)  # rendering (line, caret) must not fail either
        assert msg and err.message
        if err.span is not None:
            assert msg.startswith(f"line {err.line}, column {err.column}: ")
        return "error"
    printed = to_text(m)
    back = parse(printed)
    assert back == m, (text, printed)
    assert to_text(back) == printed, printed
    assert Pattern.model_validate_json(m.model_dump_json()) == m
    why = planner.reasons(m)
    events = events_for(m, rng)
    outcome = _run(m, "auto", events)
    if outcome == "unsupported":
        assert all(why.values()), why  # auto refuses only when every engine does
        return outcome
    assert not all(why.values()), why
    names = list(why) if engines == "all" else [rng.choice(list(why))]
    for name in names:
        got = _run(m, name, events)
        if why[name] is None:
            assert got != "unsupported", (name, why)
        else:
            assert got == "unsupported", (name, why[name])
    return outcome


FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.randoms(use_true_random=False))
def test_fuzz_grammar(rng: random.Random) -> None:
    check_text(grammar_text(rng), rng)


@FUZZ
@given(st.sampled_from(SEEDS), st.randoms(use_true_random=False))
def test_fuzz_mutated_seeds(seed: str, rng: random.Random) -> None:
    check_text(mutate(rng, seed), rng)


@pytest.mark.parametrize("k", range(len(SEEDS)))
def test_every_seed_runs(k: int) -> None:
    """The seeds themselves are valid patterns that run (else the mutations would start
    from errors)."""
    assert check_text(SEEDS[k], random.Random(k), engines="all") in ("ran", "stopped")


def test_generators_reach_every_outcome() -> None:
    """The generators are not vacuous: both produce errors and runs, and some inputs
    cross each limit."""
    rng = random.Random(16)
    outcomes: dict[str, int] = {}
    messages: list[str] = []
    for k in range(300):
        text = grammar_text(rng) if k % 2 else mutate(rng, rng.choice(SEEDS))
        outcome = check_text(text, rng)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        try:
            parse(text)
        except DslError as err:
            messages.append(err.message)
    assert outcomes.get("error", 0) >= 30 and outcomes.get("ran", 0) >= 30, outcomes
    joined = "\n".join(messages)
    for limit in ("nesting deeper than", "components", "out of range"):
        assert limit in joined, limit


# --------------------------------------------------------------------------- adversarial cases


def _refused(text: str) -> DslError:
    with pytest.raises(DslError) as exc:
        parse(text)
    err = exc.value
    assert err.span is not None and str(err).startswith(f"line {err.line}, column {err.column}: ")
    head, shown, caret = str(err).split("\n")
    assert caret.strip() and set(caret.strip()) == {"^"}
    assert len(shown) <= 110 and len(caret) <= 110  # a long line is shown as a window around the caret
    return err


PRE = "PATTERN SEQ(A a) WHERE "


@pytest.mark.parametrize("n", [MAX_NESTING + 1, 200, 250, 1000])
def test_nested_parentheses(n: int) -> None:
    text = PRE + "(" * n + "a.x > 1" + ")" * n
    err = _refused(text)
    assert err.message == f"nesting deeper than {MAX_NESTING} levels"
    assert (err.line, err.column) == (1, len(PRE) + MAX_NESTING + 1)  # the 65th `(`


def test_nesting_at_the_limit_is_accepted() -> None:
    m = parse(PRE + "(" * MAX_NESTING + "a.x > 1" + ")" * MAX_NESTING)
    assert m.where == [X.Cmp(op=">", left=X.Ref(var="a", attr="x"), right=X.Num(value=1))]
    text = "PATTERN " + "SEQ(" * MAX_NESTING + "A a" + ")" * MAX_NESTING
    m = parse(text)
    assert parse(to_text(m)) == m
    assert check_text(text, random.Random(0), engines="all") == "ran"


@pytest.mark.parametrize("word, step", [("NOT ", 4), ("- ", 2), ("+ ", 2)])
def test_chained_prefix_operators(word: str, step: int) -> None:
    text = PRE + (word * 1000 + "a.x > 1" if word == "NOT " else "a.x > " + word * 1000 + "a.y")
    err = _refused(text)
    assert err.message == f"nesting deeper than {MAX_NESTING} levels"
    start = len(PRE) + (0 if word == "NOT " else len("a.x > "))
    assert err.column == start + MAX_NESTING * step + 1  # the 65th operator


def test_not_chain_counts_the_comparison() -> None:
    """`NOT` x 62 over a comparison is a tree of height 64; one more NOT is refused."""
    ok = parse(PRE + "NOT " * (MAX_NESTING - 2) + "a.x > 1")
    assert X.height(ok.where[0]) == MAX_NESTING
    assert parse(to_text(ok)) == ok
    err = _refused(PRE + "NOT " * (MAX_NESTING - 1) + "a.x > 1")
    assert err.message == f"nesting deeper than {MAX_NESTING} levels"


@pytest.mark.parametrize("n", [1000, 5000])
def test_long_operator_chain(n: int) -> None:
    """`a.y + a.y + ...` is a left-deep tree: refused at the operator that passes the limit."""
    text = PRE + "a.x > " + " + ".join(["a.y"] * n)
    err = _refused(text)
    assert err.message == f"nesting deeper than {MAX_NESTING} levels"
    # the k-th `+` makes a BinOp of height k + 1: the 64th is refused
    first = len(PRE) + len("a.x > a.y")
    assert err.column == first + (MAX_NESTING - 1) * len(" + a.y") + 2


@pytest.mark.parametrize("n", [MAX_NESTING + 1, 200, 1000])
def test_nested_seq(n: int) -> None:
    err = _refused("PATTERN " + "SEQ(" * n + "A a" + ")" * n)
    assert err.message == f"nesting deeper than {MAX_NESTING} levels"
    assert err.column == len("PATTERN ") + MAX_NESTING * len("SEQ(") + 1


def test_5000_digit_integer() -> None:
    text = PRE + "a.x > " + "9" * 5000
    err = _refused(text)
    assert err.message == "number literal longer than 400 characters"
    assert err.column == len(PRE + "a.x > ") + 1
    assert len(str(err).splitlines()[0]) < 200  # the message does not repeat the 5,000 digits


@pytest.mark.parametrize("window, shown", [("1e400 weeks", "1e400"), ("1e309", "1e309"), ("1e301 ms", "1e301")])
def test_window_out_of_range(window: str, shown: str) -> None:
    err = _refused(f"PATTERN SEQ(A a, B b) WITHIN {window}")
    assert err.message == f"number `{shown}` is out of range (at most 1e300 in magnitude)"
    assert err.column == len("PATTERN SEQ(A a, B b) WITHIN ") + 1


def test_window_out_of_range_after_the_unit() -> None:
    err = _refused("PATTERN SEQ(A a, B b) WITHIN 1e300 weeks")
    assert err.message == "the window is out of range (at most 1e300 days)"
    m = parse("PATTERN SEQ(A a, B b) WITHIN 1e299 weeks")
    assert m.window == Window(value=7e299, unit="day")
    # an int window stays exact through the week factor (no float rounding)
    big = 10 ** 200
    m = parse(f"PATTERN SEQ(A a, B b) WITHIN {big} weeks")
    assert m.window.value == 7 * big and isinstance(m.window.value, int)
    assert parse(to_text(m)) == m


@pytest.mark.parametrize("literal, message", [
    ("1" + "0" * 400 + "%", "number literal longer than 400 characters"),
    ("1" + "0" * 301 + "%", "is out of range (at most 1e300 in magnitude)"),
    ("1e400%", "number `1e400` is out of range (at most 1e300 in magnitude)"),
    ("1e-400", "number `1e-400` is too small: it rounds to 0"),
])
def test_number_literals_out_of_range(literal: str, message: str) -> None:
    err = _refused(PRE + "a.x > " + literal)
    assert message in err.message
    assert err.column == len(PRE + "a.x > ") + 1


def test_number_range_bounds_are_accepted() -> None:
    m = parse(PRE + "a.x > 1e300 AND a.y < 1" + "0" * 300 + "% AND a.k > 1." + "0" * 398 + " AND a.z > 5e-324")
    assert [c.right.value for c in m.where] == [1e300, 10 ** 300, 1.0, 5e-324]
    assert parse(to_text(m)) == m


def test_seq_of_1000_components() -> None:
    comps = [f"A a{i}" for i in range(1000)]
    text = "PATTERN SEQ(" + ", ".join(comps) + ")"
    err = _refused(text)
    assert err.message == f"more than {MAX_COMPONENTS} components"
    assert err.column == text.index(f"A a{MAX_COMPONENTS},") + 1
    ok = "PATTERN SEQ(" + ", ".join(comps[:MAX_COMPONENTS]) + ")"
    assert check_text(ok, random.Random(1), engines="all") == "ran"


def test_alternatives_limit() -> None:
    # each `?` doubles the alternatives: 6 of them give 64, 7 give 128
    ok = parse("PATTERN SEQ(" + ", ".join(f"A? a{i}" for i in range(6)) + ", B b)")
    assert planner.reasons(ok)["nfab"] is None
    err = _refused("PATTERN SEQ(" + ", ".join(f"A? a{i}" for i in range(7)) + ", B b)")
    assert err.message == f"the pattern expands into more than {MAX_ALTERNATIVES} alternatives"
    err = _refused("PATTERN AND(" + ", ".join(f"OR(A a{i}, B b{i})" for i in range(7)) + ")")
    assert err.message == f"the pattern expands into more than {MAX_ALTERNATIVES} alternatives"


def test_predicates_limit() -> None:
    comps = "PATTERN SEQ(" + ", ".join(f"A? a{i}" for i in range(6)) + ", B b) WHERE "
    conj = [f"a{i % 6}.x > {i}" for i in range(MAX_PREDICATES + 1)]
    m = parse(comps + " AND ".join(conj[:MAX_PREDICATES]))
    assert len(m.where) == MAX_PREDICATES
    text = comps + " AND ".join(conj)
    err = _refused(text)
    assert err.message == f"more than {MAX_PREDICATES} predicates"
    assert err.column == text.index(conj[MAX_PREDICATES]) + 1
    err = _refused(comps + "[k] AND " + " AND ".join(conj[:MAX_PREDICATES]))  # `[attr]` counts too
    assert err.message == f"more than {MAX_PREDICATES} predicates"


def test_expression_terms_limit() -> None:
    # an OR of 1,365 comparisons has 4,096 terms (1 + 1,365 * 3); one more is refused
    ok = parse("PATTERN SEQ(A a) WHERE " + " OR ".join(f"a.x = {i}" for i in range(1365)))
    assert sum(1 for _ in ok.where[0].walk()) == MAX_EXPRESSION_NODES
    err = _refused("PATTERN SEQ(A a) WHERE " + " OR ".join(f"a.x = {i}" for i in range(1366)))
    assert err.message == f"the predicates have more than {MAX_EXPRESSION_NODES:,} terms in all"


def test_pattern_length_limit() -> None:
    text = "PATTERN SEQ(A a) WHERE " + " AND ".join(["a.x > 1"] * 20000)
    assert len(text) > MAX_PATTERN_LENGTH
    err = _refused(text)
    assert err.message == f"the pattern is longer than {MAX_PATTERN_LENGTH:,} characters"
    assert (err.line, err.column) == (1, MAX_PATTERN_LENGTH + 1)  # the first character past the limit
    with pytest.raises(DslError):
        parse_expr(" AND ".join(["a.x > 1"] * 20000))


# --------------------------------------------------------------------------- models built by hand


def _deep_group(n: int) -> Pattern:
    g: Component | Group = Component(type="A", var="a")
    for _ in range(n):
        g = Group(op="SEQ", items=[g])
    return Pattern(root=g if isinstance(g, Group) else Group(op="SEQ", items=[g]))


def _deep_not(n: int) -> X.Node:
    e: X.Node = X.Cmp(op=">", left=X.Ref(var="a", attr="x"), right=X.Num(value=1))
    for _ in range(n):
        e = X.Not(item=e)
    return e


@pytest.mark.parametrize("n", [200, 1000, 5000])
def test_deep_models_are_refused_not_crashed(n: int) -> None:
    """A model from the designer or JSON is guarded too: check, the printers and the
    planner raise PatternError, never RecursionError or a pydantic serialization error."""
    limit = sys.getrecursionlimit()
    deep = _deep_group(n)
    for f in (deep.check, deep.check_limits, lambda: to_text(deep), lambda: planner.reasons(deep),
              lambda: planner.make_matcher(deep), lambda: planner.choose(deep)):
        with pytest.raises(PatternError, match=f"nesting deeper than {MAX_NESTING} levels"):
            f()
    e = _deep_not(n)
    assert sum(1 for _ in e.walk()) == n + 3  # walk is iterative
    assert X.height(e) == n + 2
    with pytest.raises(PatternError, match="nesting deeper than"):
        X.to_text(e)
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var="a")]), where=[e])
    for f in (m.check, lambda: planner.reasons(m), lambda: planner.make_matcher(m)):
        with pytest.raises(PatternError, match="nesting deeper than"):
            f()
    assert sys.getrecursionlimit() == limit


def test_too_many_components_in_a_model() -> None:
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var=f"a{i}") for i in range(1000)]))
    with pytest.raises(PatternError, match=f"more than {MAX_COMPONENTS} components"):
        m.check()
    with pytest.raises(PatternError, match=f"more than {MAX_COMPONENTS} components"):
        planner.make_matcher(m)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 1e301, 10 ** 400])
def test_non_finite_and_huge_numbers_in_a_model(value: float) -> None:
    """NaN thresholds and infinities are refused (check, printer, planner); none prints as
    `inf`/`nan`, which the DSL could not read back."""
    cmp = X.Cmp(op=">", left=X.Ref(var="a", attr="x"), right=X.Num(value=value))
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var="a")]), where=[cmp])
    for f in (m.check, lambda: to_text(m), lambda: planner.reasons(m), lambda: planner.make_matcher(m)):
        with pytest.raises(PatternError):
            f()
    pct = X.Num(value=value, percent=True)
    with pytest.raises(PatternError):
        X.to_text(pct)


@pytest.mark.parametrize("value", [math.inf, 1e301, 10 ** 400])
def test_non_finite_and_huge_windows_in_a_model(value: float) -> None:
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var="a"), Component(type="B", var="b")]),
                window=Window(value=value, unit="day"))
    for f in (m.check, lambda: to_text(m), lambda: planner.make_matcher(m)):
        with pytest.raises(PatternError):
            f()


def test_window_that_underflows_to_zero_is_refused() -> None:
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var="a")]), window=Window(value=5e-324, unit="ms"))
    with pytest.raises(PatternError, match="the window must be positive"):
        m.check()


# --------------------------------------------------------------------------- floats print so that they parse back

_FINITE = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_FINITE, st.integers(-10 ** 300, 10 ** 300), st.sampled_from([5e-324, -0.0, 1e300, -1e300,
                                                                                 2.0 ** 53 + 2, 0.1 + 0.2])),
       st.booleans(), st.sampled_from(["left", "right", "neg"]))
def test_every_number_prints_so_that_it_parses_back(value: float, percent: bool, where: str) -> None:
    num = X.Num(value=value, percent=percent)
    ref = X.Ref(var="a", attr="x")
    node = {"left": X.Cmp(op="<", left=num, right=ref), "right": X.Cmp(op=">", left=ref, right=num),
            "neg": X.Cmp(op=">", left=ref, right=X.Neg(item=num))}[where]
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var="a")]), where=[node]).check()
    text = to_text(m)
    assert "inf" not in text and "nan" not in text
    back = parse(text)
    assert back == m, text
    got = back.where[0]
    got_num = {"left": lambda: got.left, "right": lambda: got.right, "neg": lambda: got.right.item}[where]()
    assert type(got_num.value) is type(value) and (got_num.value == value), (text, got_num.value)
    assert to_text(back) == text


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.floats(min_value=5e-324, max_value=1e300, allow_nan=False, allow_infinity=False),
                 st.integers(1, 10 ** 300)),
       st.sampled_from([None, "ms", "s", "min", "hour", "day", "events"]))
def test_every_window_prints_so_that_it_parses_back(value: float, unit: str | None) -> None:
    m = Pattern(root=Group(op="SEQ", items=[Component(type="A", var="a"), Component(type="B", var="b")]),
                window=Window(value=value, unit=unit))
    try:
        m.check()
    except PatternError as err:
        assert "window" in err.message and unit == "ms"  # only a sub-normal ms window underflows
        return
    text = to_text(m)
    back = parse(text)
    assert back == m, text
    assert type(back.window.value) is type(value), text
