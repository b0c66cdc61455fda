"""Either answer of ``cep explain`` as a tree: event → edge → predicates with their values.

:func:`match_tree` reads an :func:`engine.explain.explain_match` result, :func:`why_not_tree` an
:func:`engine.explain.explain_why_not` result (:func:`explanation_tree` picks by the verdict). The
tree carries the facts of the text form (:func:`engine.explain.format_text`): every line of the
text is the ``line`` of one node, so nothing the text says is lost; the nodes add what the text
only implies (the event's step index, the automaton state and edge as the Automaton and Debug
figures name them, the conjunct's operand values and result as data).

Node kinds:

* ``event``: one event of the stream (``event`` id, ``step`` its 0-based index in the stream
  when known; labelled ``event #k (id X)`` by :func:`engine.trace.event_label`);
* ``edge``: a move of the run (``state`` → ``to`` by ``edge``: begin / take / proceed / ignore);
* ``predicate``: one conjunct checked (``conjunct`` its text, ``values`` its operands,
  ``result``; ``equivalence`` for a ``[attr]`` test);
* ``note``: everything else (the verdict, the window, a negation, the furthest run, a hint).

Plain dataclasses: no streamlit, no plotly (``engine`` never imports them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from engine.explain.text import _ids, _num, _pred, _step
from engine.trace import event_label

NODE_KINDS = ("event", "edge", "predicate", "note")


@dataclass
class Node:
    """One node of an explanation tree (see the module docstring for the kinds)."""

    kind: str
    label: str
    children: list["Node"] = field(default_factory=list)
    line: str = ""                     # the line of the text form this node stands for ("" for none)
    key: str = ""                      # a stable path ("0.2.1"): unique in its tree, for UI keys
    # event
    event: Any = None
    step: int | None = None
    # edge
    state: str | None = None
    to: str | None = None
    edge: str | None = None
    # predicate
    conjunct: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    result: bool | None = None
    equivalence: bool = False

    def walk(self) -> Iterator["Node"]:
        """This node and every node under it, depth first."""
        yield self
        for c in self.children:
            yield from c.walk()


def _keyed(root: Node, prefix: str = "0") -> Node:
    root.key = prefix
    for i, c in enumerate(root.children):
        _keyed(c, f"{prefix}.{i}")
    return root


def _event_node(event_id: Any, step_of: Mapping[Any, int] | None, extra: str = "", line: str = "",
                position: int | None = None) -> Node:
    """An event node; its step index from the answer's 1-based ``position`` when it carries
    one, else from ``step_of``."""
    k = position - 1 if isinstance(position, int) and position >= 1 else (step_of or {}).get(event_id)
    if k is None and step_of:  # ids from JSON may differ in type from the stream's (1 vs "1")
        k = next((v for i, v in step_of.items() if str(i) == str(event_id)), None)
    label = event_label(k, event_id) if k is not None else f"event id {event_id}"
    return Node("event", label + (f" · {extra}" if extra else ""), line=line, event=event_id, step=k)


def _predicate_node(p: dict[str, Any]) -> Node:
    return Node("predicate", _pred(p), line=_pred(p), conjunct=str(p.get("text", "")),
                values=dict(p.get("values") or {}), result=bool(p.get("result")),
                equivalence=bool(p.get("equivalence")))


def _edge_of(s: dict[str, Any], line: str) -> Node:
    kind = s["kind"]
    edge = s.get("edge") or kind
    to = s.get("to")
    if kind == "skip":
        formula = f" [{s['formula']}]" if s.get("formula") else ""
        label = f"{edge} at {s.get('state')}{formula}: {s.get('why', '')}"
    else:
        label = f"{kind} at {s.get('state')} → {to}" + (f": {s['text']}" if s.get("text") else "")
    node = Node("edge", label, line=line, state=s.get("state"), to=to, edge=edge)
    node.children = [_predicate_node(p) for p in s.get("predicates", [])]
    return node


def _step_nodes(s: dict[str, Any], step_of: Mapping[Any, int] | None) -> tuple[Any, Node]:
    """``(event id or None, node)`` for one step of a match explanation; the node is an edge
    (grouped under its event by the caller) or a note."""
    lines = _step(s)
    kind = s["kind"]
    if kind in ("begin", "take", "proceed", "skip"):
        return s.get("event"), _edge_of(s, lines[0])
    if kind == "negation":
        note = Node("note", lines[0], line=lines[0])
        for c, ln in zip(s.get("candidates", []), lines[1:]):
            ev = _event_node(c.get("event"), step_of, f"{c.get('type')} @ {_num(c.get('ts'))}", line=ln.strip(),
                             position=c.get("position"))
            ev.label += ": does not qualify" if c.get("failed") else ": qualifies"
            if c.get("failed"):
                ev.children.append(_predicate_node(c["failed"]))
            note.children.append(ev)
        return None, note
    note = Node("note", lines[0], line=lines[0], values=dict(s.get("values") or {}),
                result=s.get("result") if isinstance(s.get("result"), bool) else None)
    note.children = [_predicate_node(p) for p in s.get("predicates", [])]
    return None, note


def match_tree(result: dict[str, Any], step_of: Mapping[Any, int] | None = None) -> Node:
    """The tree of an :func:`engine.explain.explain_match` result: the match at the root, one
    event node per event the run read (in order; consecutive steps on one event share it),
    under each the moves on it with their predicates; the window, negations and the match
    itself as notes. ``step_of`` maps event id → 0-based index in the stream."""
    head = (f"match #{result['index']} (engine {result.get('engine', '?')}): {_ids(result['match'])}"
            f"  ts {_num(result.get('start'))} .. {_num(result.get('end'))}")
    root = Node("note", head, line=head)
    if result.get("match_window"):
        ln = f"match windows: {result['match_window']['text']}"
        root.children.append(Node("note", ln, line=ln))
    current: Node | None = None
    for s in result.get("steps", []):
        ev, node = _step_nodes(s, step_of)
        if ev is None:
            root.children.append(node)
            current = None
            continue
        if current is None or current.event != ev:
            extra = f"{s.get('type')} @ {_num(s.get('ts'))}" if s.get("type") is not None else ""
            current = _event_node(ev, step_of, extra, position=s.get("position"))
            root.children.append(current)
        current.children.append(node)
    return _keyed(root)


def why_not_tree(result: dict[str, Any], step_of: Mapping[Any, int] | None = None) -> Node:
    """The tree of an :func:`engine.explain.explain_why_not` result with no match: the
    verdict at the root; the furthest partial run with its events; the reason as event →
    edge → failing predicate when it names them (a note otherwise); the nearest match."""
    if result.get("verdict") == "match":
        if result.get("steps"):
            return match_tree(result, step_of)
        ln = f"match #{result.get('index')}: {_ids(result.get('match') or {})}"
        return _keyed(Node("note", ln, line=ln))
    cand = result.get("candidate") or {}
    head = (f"no match (engine {result.get('engine', '?')}): "
            + (_ids(cand) if cand else "events " + ",".join(map(str, result.get("events", [])))))
    root = Node("note", head, line=head)
    furthest = result.get("furthest") or {}
    ln = f"furthest partial run: {_ids(furthest)}"
    far = Node("note", ln, line=ln)
    for var, ids in furthest.items():
        for n, i in enumerate(ids, 1):
            far.children.append(_event_node(i, step_of, f"{var}[{n}]" if len(ids) > 1 else var))
    root.children.append(far)
    r = result.get("reason") or {}
    ln = f"reason ({r.get('kind')}): {r.get('text', '')}"
    reason = Node("note", ln, line=ln, values=dict(r.get("values") or {}))
    vals = r.get("values") or {}
    if vals:
        vl = "values: " + ", ".join(f"{k}={_num(v)}" for k, v in vals.items())
        reason.children.append(Node("note", vl, line=vl, values=dict(vals)))
    if r.get("event") is not None:
        ev = _event_node(r["event"], step_of, str(r.get("var") or ""), line=f"event: {r['event']}")
        target = ev
        if r.get("edge") or r.get("state"):
            edge = Node("edge", f"{r.get('edge') or '?'} at {r.get('state') or '?'}", state=r.get("state"),
                        edge=r.get("edge"), to=r.get("to"))
            ev.children.append(edge)
            target = edge
        if r.get("predicate"):
            p = {"text": r["predicate"], "values": vals, "result": False}
            target.children.append(_predicate_node(p))
        reason.children.append(ev)
    root.children.append(reason)
    near = result.get("nearest")
    if near:
        ln = (f"did you mean match #{near['index']}? {_ids(near['match'])} (shares {near['shared']} "
              f"event{'s' if near['shared'] != 1 else ''})")
        root.children.append(Node("note", ln, line=ln))
    return _keyed(root)


def explanation_tree(result: dict[str, Any], step_of: Mapping[Any, int] | None = None) -> Node:
    """:func:`match_tree` for an explained match (``steps`` present), :func:`why_not_tree` otherwise."""
    if result.get("verdict") == "match" and "steps" in result:
        return match_tree(result, step_of)
    return why_not_tree(result, step_of)


def predicates(root: Node) -> list[Node]:
    """The predicate nodes of a tree, in order."""
    return [n for n in root.walk() if n.kind == "predicate"]


__all__ = ["NODE_KINDS", "Node", "explanation_tree", "match_tree", "predicates", "why_not_tree"]
