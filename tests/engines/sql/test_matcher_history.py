"""The thread matcher's History (engine/engines/sql/matcher.py) keeps, as labels grow, the same merge
key the traced search computes from the whole labels (history_key), and the positions a Frame
navigates with equal those built from the labels."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.engines.sql.frame import Frame
from engine.engines.sql.matcher import History, history_key, key_updater

MEMBERS = [frozenset({"A"}), frozenset({"B"}), frozenset({"A", "B"}), frozenset({"C", "A"})]
needs = st.sets(st.one_of(
    st.tuples(st.sampled_from(["last", "first"]), st.sampled_from(MEMBERS), st.integers(1, 3)),
    st.tuples(st.just("all"), st.sampled_from(MEMBERS)),
    st.just(("labels",))), max_size=3)


@given(needs, st.lists(st.sampled_from("ABC"), max_size=12))
def test_kept_key_equals_recomputed_key(items: set, labels: list[str]) -> None:
    whole, kept = history_key(items), key_updater(items)
    if whole is None:
        assert kept is None
        return
    h = History([], [], {}, None)
    for v in labels:
        h.positions.setdefault(v, []).append(len(h.labels))
        h.labels.append(v)
        assert kept(h) == whole(tuple(h.labels))
    copy = h.copy()
    assert copy.labels == h.labels and copy.positions == h.positions and copy.labels is not h.labels


@given(st.lists(st.sampled_from("ABC"), max_size=12), st.integers(0, 12), st.sampled_from(MEMBERS),
       st.integers(0, 3))
def test_frame_navigation_by_positions_equals_a_scan(labels: list[str], n: int, members: frozenset, k: int) -> None:
    f = Frame([{}] * 20, 3, labels, n=min(n, len(labels)))
    count = f.n
    idx = [3 + i for i in range(count) if labels[i] in members]
    assert f.rows_of(members, False) == idx
    assert f.last_of(members, False, k) == (idx[-1 - k] if k < len(idx) else None)
    assert f.first_of(members, False, k) == (idx[k] if k < len(idx) else None)
