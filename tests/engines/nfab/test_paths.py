"""NFA^b match construction from run paths ("matches cost nothing until read").

A lineage of runs keeps the ids of its latest path prefix (``Run.memo``) and a merged
member keeps its own older part (``Member.tail``), so that a match extends what an earlier
match of the lineage read instead of walking back to the start. These tests use longer
streams than tests/engines/nfab/test_matcher.py, with Kleene components that emit many matches per run
(the output-heavy SASE shape), under every strategy, and compare with the oracle: the
matches built (merge on and off, shared buffer off) and the count of count mode. The
oracle defines skip_till_any_match only; under the other strategies the reference is the
same engine with each match read back by the §4.9 walk over version-labelled pointers
(``_walk``), which uses neither the trails nor the memos.
"""
from __future__ import annotations

import json
import pickle

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.engines.oracle import oracle
from engine.dsl import parse
from engine.events import make_stream
from engine.match import Match, StateExplosion, run_all
from engine.engines.nfab.matcher import NfabMatcher
from engine.engines.nfab.runs import Run
from engine.engines.nfab.shared_buffer import Member
from engine.model import PatternError
from engine.commands.output import json_default, match_json
from engine.engines.planner import ENGINES

SHAPES = (
    "SEQ(A+ a[], B b)",
    "SEQ(A a, B+ b[])",
    "SEQ(A+ a[], B+ b[])",
    "SEQ(A+ a[], B b, A+ c[])",
    "SEQ(A a, A+ b[], B c)",
)
PREDICATES = (
    "a[i].x >= a[i-1].x",
    "a[i].x > a[i-1].x",
    "a[i].y > max(a[..i-1].x)",
    "a[i].y >= min(a[..i-1].y)",
    "a[i].x >= avg(a[..i-1].x)",
    "a[1].x = 0",
    "b.x < 2",
    "a.len >= 2",
)
STRATEGIES = ("skip_till_next_match", "partition_contiguity", "strict_contiguity", "skip_till_any_match")


@st.composite
def streams(draw, max_size: int):
    n = draw(st.integers(4, max_size))
    ident = draw(st.sampled_from([lambda i: i, lambda i: f"e{i}", lambda i: f'q"é{i}', lambda i: -i]))
    scale = draw(st.sampled_from([1, 0.5]))
    rows, ts = [], 0
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 1, 2]))
        rows.append(dict(type=draw(st.sampled_from("AAAB")), ts=ts * scale, id=ident(i), x=draw(st.integers(0, 3)),
                         y=draw(st.integers(0, 3)), k=draw(st.sampled_from("pq"))))
    return make_stream(rows)


@st.composite
def patterns(draw):
    shape = draw(st.sampled_from(SHAPES))
    strategy = draw(st.sampled_from(STRATEGIES))
    preds = [strategy]
    if draw(st.booleans()):
        preds.append("[k]")
    for p in draw(st.lists(st.sampled_from(PREDICATES), max_size=2, unique=True)):
        if ("b." in p and "b[]" in shape) or ("a.len" in p and shape.startswith("SEQ(A a")):
            continue
        if p.startswith("a[i]") and "A+ a[]" not in shape:
            continue
        preds.append(p)
    window = draw(st.sampled_from(["", "WITHIN 6", "WITHIN 10", "WITHIN 8 events"]))
    try:
        p = parse(f"PATTERN {shape} WHERE {' AND '.join(preds)} {window}")
    except PatternError:
        assume(False)
    assume(ENGINES["nfab"].supports(p) is None)
    return p


class WalkedNfab(NfabMatcher):
    """The reference: every match read back by following the version-labelled pointers
    from the run's newest entry (§4.9), switching to a merged member's version at its
    switch entry."""

    def _construct_paths(self, r: Run, chain_plan, e, emitted: dict, live: list[Member] | None) -> None:
        for switches in ([()] if live is None else [m.switches for m in live]):
            ents = self._walk(r.entry, r.version, switches)[::-1]
            ids: dict[str, list] = {v: [] for v in self.order}
            for x in ents:
                ids[chain_plan.variable_of[x.state]].append(x.event.id)
            m = Match(tuple((v, tuple(ids[v])) for v in self.order), ents[0].event.ts, ents[-1].event.ts,
                      ents[0].event.seq, ents[-1].event.seq)
            self._add(m, len(ents), r, chain_plan, e, emitted)


def _check(p, events) -> None:
    if p.strategy.value == "skip_till_any_match":
        expected = {m.key: m for m in oracle.run(p, events)}
    else:
        try:
            expected = {m.key: m for m in run_all(WalkedNfab(p), events)}
        except StateExplosion:
            assume(False)
    for share, merge in ((True, True), (True, False), (False, False)):
        try:
            got = run_all(NfabMatcher(p, share=share, merge=merge), events)
        except StateExplosion:
            assume(False)
        for m in got:  # the JSON Lines text, equality and hashing of a plain Match
            assert match_json(m) == json.dumps(m.to_json(), default=json_default)
            plain = Match(m.bindings, m.start, m.end, m.start_seq, m.end_seq)
            assert m == plain and plain == m and hash(m) == hash(plain)
            assert pickle.loads(pickle.dumps(m)) == plain
        keys = [m.key for m in got]
        assert len(keys) == len(set(keys)), f"duplicates (share={share}, merge={merge})"
        assert set(keys) == set(expected), f"share={share} merge={merge}\n{p}"
        for m in got:
            assert (m.start, m.end, m.start_seq, m.end_seq) == (
                expected[m.key].start, expected[m.key].end, expected[m.key].start_seq, expected[m.key].end_seq)
        m = NfabMatcher(p, share=share, merge=merge, count_only=True)
        built = run_all(m, events)
        assert m.counted + len(built) == len(expected)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(p=patterns(), events=streams(max_size=22))
def test_paths_equal_the_oracle_on_longer_streams(p, events):
    assume(p.strategy.value != "skip_till_any_match" or len(events) <= 11)
    _check(p, events)


def test_a_lineage_extends_its_memo():
    """p1s1 shape: one run takes every event and every third one also completes a match;
    each match is the previous one's prefix extended, read from the lineage's memo."""
    rows = [dict(type="A", ts=i, id=i, x=int(i % 3 == 2), y=0, k="p") for i in range(60)]
    events = make_stream(rows)
    p = parse("PATTERN SEQ(A+ a[], A b) WHERE partition_contiguity AND [k] AND a[1].ts = 0 AND b.x = 1")
    m = NfabMatcher(p)
    got = run_all(m, events)
    assert [m.key for m in got] == [m.key for m in run_all(WalkedNfab(p), events)]
    assert [m.ids("a") for m in got] == [tuple(range(i)) for i in range(2, 60, 3)]
    assert m.runs() and m.runs()[0].memo[0].depth == 59  # the last match without its b: 59 events of a


def test_output_heavy_sase_queries_equal_the_pointer_walk():
    """The SASE template of benchmarks/nfab_output.py on 3,000 stock events: merged runs
    whose paths outlive their oldest members (the memo drops the positions no live member
    reads); every match and its JSON Lines text equal the §4.9 walk's."""
    from sample_streams.generators import stocks

    events = make_stream(stocks(3000, seed=7, p_up=0.55, price_step=10).to_dict("records"))
    template = ("PATTERN SEQ(Stock+ a[], Stock b) WHERE {es} AND [symbol] AND a[1].price % 500 = 0 "
                "AND {p} AND b.volume < 150 WITHIN 200 events")
    for es, p in (("partition_contiguity", "true"), ("skip_till_next_match", "a[i].price > a[i-1].price"),
                  ("skip_till_next_match", "a[i].price > min(a[..i-1].price)")):
        pat = parse(template.format(es=es, p=p))
        got, want = run_all(NfabMatcher(pat), events), run_all(WalkedNfab(pat), events)
        assert len(got) > 500
        assert [match_json(m) for m in got] == [json.dumps(m.to_json(), default=json_default) for m in want]


@st.composite
def keyed_streams(draw):
    """Partition values that compare equal across types (1, 1.0, True), NaN (equal to
    nothing) and a missing key, so that the key's equalities, which NFA^b does not evaluate
    within a partition, are checked against the oracle, which evaluates them."""
    n = draw(st.integers(2, 10))
    rows, ts = [], 0
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 2]))
        row = dict(type=draw(st.sampled_from("AB")), ts=ts, id=i, x=draw(st.integers(0, 3)))
        k = draw(st.sampled_from(["p", 1, 1.0, True, float("nan"), None]))
        if k is not None:
            row["k"] = k
        rows.append(row)
    return make_stream(rows)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(shape=st.sampled_from(["SEQ(A a, B+ b[], A c)", "SEQ(A+ a[], B b)", "SEQ(A a, B b)", "SEQ(A a)",
                               "SEQ(A+ a[])"]),
       pred=st.sampled_from(["", " AND a.k = a.k", " AND b.x >= 1", " AND a[1].k = a[a.len].k"]),
       events=keyed_streams())
def test_partition_equalities_hold_as_the_oracle_evaluates_them(shape, pred, events):
    if "a[]" in shape:
        pred = pred.replace("a.k = a.k", "a[1].k = a[1].k")
    elif "a.len" in pred:
        pred = ""
    if "b" not in shape:
        pred = pred.replace(" AND b.x >= 1", "")
    p = parse(f"PATTERN {shape} WHERE skip_till_any_match AND [k]{pred} WITHIN 6")
    _check(p, events)


def test_nan_partition_values_equal_nothing():
    """Two events whose key is the same NaN object share no partition: `b.k = a.k` (from
    `[k]`, not evaluated within a partition) is false for them, as the oracle says."""
    nan = float("nan")
    events = make_stream([dict(type="A", ts=0, id=0, k=nan), dict(type="B", ts=1, id=1, k=nan),
                          dict(type="A", ts=2, id=2, k=1), dict(type="B", ts=3, id=3, k=1.0)])
    p = parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND [k] WITHIN 6")
    assert [m.key for m in run_all(NfabMatcher(p), events)] == [m.key for m in oracle.run(p, events)] == [
        (("a", (2,)), ("b", (3,)))]


def _longest_prefix(pointers, label):
    """The predecessor whose label is the longest prefix of ``label``, by brute force."""
    best = max((lab for lab, _ in pointers if label[:len(lab)] == lab), key=len)
    return dict(pointers)[best]


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple), min_size=1, max_size=20,
                       unique=True),
       version=st.lists(st.integers(1, 3), min_size=1, max_size=6).map(tuple))
def test_follow_and_walk_agree_with_a_brute_force_search(labels, version):
    """Entry.follow scans a narrow entry (up to NARROW_ENTRY pointers) and looks a wide one's
    labels up in a dict; MatchConstruction._walk passes an entry of one pointer without
    follow. Each gives the predecessor whose label is the longest prefix of the version."""
    from engine.engines.nfab.shared_buffer import NARROW_ENTRY, Entry

    event = make_stream([dict(type="A", ts=0, id=0)])[0]
    labels = [version[:1]] + [lab for lab in labels if lab != version[:1]]  # one label always fits
    predecessors = [Entry(0, 0, event) for _ in labels]
    for lab, predecessor in zip(labels, predecessors):
        predecessor.pointers = [(lab, None)]  # the first entry of a run
    entry = Entry(0, 1, event)
    entry.pointers = list(zip(labels, predecessors))
    assert entry.follow(version) is _longest_prefix(entry.pointers, version)
    assert (entry.index is not None) == (len(labels) > NARROW_ENTRY)
    assert entry.follow(version) is _longest_prefix(entry.pointers, version)  # a wide entry's index, kept
    chain = Entry(0, 2, event)
    chain.pointers = [(version, entry)]
    walked = NfabMatcher._walk(chain, version)
    assert len(walked) == 3 and walked[:2] == [chain, entry]
    assert walked[2] is _longest_prefix(entry.pointers, version)
