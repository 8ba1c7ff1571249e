"""Conflicts: known tensions the assembler can see before the model does.

Records that answer the same question (same `topic`, or, for records without one, caller-supplied
embeddings closer than a threshold) form a group. A group holding a current authoritative record beside
expired, not-yet-valid, superseded or informal ones is a known tension. We report it, and can say so at the
top of the sources, in facts from metadata only: which handle is what. We never guess the answer.

Under `conflict_policy="withhold"` the assembler decides what the metadata already decides: in a group with a
current authoritative member, the weak members are left out of the prompt (`withhold_weak`), each accounted as
a drop with its reasons, and the group is still reported (`Conflict.withheld`), so the reader can be told.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from ..records.candidates import Candidate, status_text
from ..records.vectors import KeptVectors, components


@dataclass(frozen=True)
class WithheldMember:
    """A weak member of a conflict group left out of the prompt (`conflict_policy="withhold"`): it has no
    handle, so it is named by its id and the metadata a reader recognises it by."""

    id: str
    doc: str | None
    section: str | None
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "doc": self.doc, "section": self.section, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class Conflict:
    topic: str | None  # None for a group found by embeddings
    current: tuple[str, ...]  # handles of current authoritative records
    others: tuple[tuple[str, tuple[str, ...]], ...]  # (handle, reasons it is not the answer)
    withheld: tuple[WithheldMember, ...] = ()  # weak members left out of the prompt

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"topic": self.topic, "current": list(self.current),
                                  "others": [{"handle": h, "reasons": list(r)} for h, r in self.others]}
        if self.withheld:  # only under `withhold`: other policies' reports keep their bytes
            out["withheld"] = [w.to_dict() for w in self.withheld]
        return out


def weak_reasons(cand: Candidate) -> tuple[str, ...]:
    """Why a record should not be the answer: its authority and its validity status, from metadata."""
    reasons: list[str] = []
    if cand.record.authority in ("informal", "superseded"):
        reasons.append(cand.record.authority)
    if cand.status != "current":
        reasons.append(status_text(cand) or cand.status)
    return tuple(reasons)


def is_current_authoritative(cand: Candidate) -> bool:
    return cand.record.authority == "authoritative" and cand.status == "current"


def find_conflicts(seated: Sequence[tuple[str, Candidate]], *, embedding_threshold: float | None = 0.9,
                   withheld: Sequence[Candidate] = ()) -> tuple[Conflict, ...]:
    """Tensions among the records actually in the prompt, in order of first appearance; `withheld` are the
    weak members `withhold_weak` left out, reported with the group they were left out of."""
    members: list[tuple[str | None, Candidate]] = [*seated, *((None, c) for c in withheld)]
    conflicts = []
    for topic, group in _member_groups(members, embedding_threshold):
        current = tuple(h for h, c in group if h is not None and is_current_authoritative(c))
        others = tuple((h, weak_reasons(c)) for h, c in group if h is not None and weak_reasons(c))
        left_out = tuple(WithheldMember(c.id, c.record.doc, c.record.section, weak_reasons(c))
                         for h, c in group if h is None)
        if current and (others or left_out):
            conflicts.append(Conflict(topic, current, others, left_out))
    return tuple(conflicts)


def withhold_weak(selected: Sequence[Candidate], *, embedding_threshold: float | None = 0.9
                  ) -> tuple[list[Candidate], list[Candidate]]:
    """(kept, withheld): the weak members of every group that has a current authoritative member leave the
    prompt; records in no such group, and groups with no current authoritative member, are untouched. Which
    record holds is read from metadata (authority, validity), never from what the records say."""
    weak: set[int] = set()
    for _, group in _member_groups([(None, c) for c in selected], embedding_threshold):
        if any(is_current_authoritative(c) for _, c in group):
            weak.update(c.rank for _, c in group if weak_reasons(c))
    return [c for c in selected if c.rank not in weak], [c for c in selected if c.rank in weak]


class Withholding:
    """What `withhold_weak` will leave out of a selection, followed as the budget pass builds it (one instance per
    assembly), so the room a withheld record would take goes to the next ranks. `propose(c)` gives the ranks that
    become withheld if `c` joins the selection (`c`'s own among them when it is weak in a decided group);
    `accept(c)` adds it. Groups only grow as the selection grows, so each record changes only its own group: a
    topic group costs its size, an embedding group one comparison of the new embedding with the selected ones
    (`KeptVectors`, exact as `components` is), and a record with neither changes nothing."""

    def __init__(self, *, embedding_threshold: float | None = 0.9) -> None:
        self._threshold = embedding_threshold
        self._topics: dict[str, list[Candidate]] = {}
        self._out: set[int] = set()
        # the embedding-grouped records selected so far, by key (their order of selection): their vectors, and
        # single-link groups as a union-find whose roots hold the members
        self._vectors = KeptVectors()
        self._parent: dict[int, int] = {}  # every key kept so far: keys are 0, 1, 2, ... in order of selection
        self._members: dict[int, list[Candidate]] = {}
        self._proposed: tuple[Candidate, set[int]] | None = None  # the last proposal's linked roots

    def propose(self, cand: Candidate) -> set[int]:
        topic = cand.record.topic
        if topic:
            group = [*self._topics.get(topic, ()), cand]
        elif cand.record.embedding is not None and self._threshold is not None:
            roots = self._linked_roots(cand)
            group = [cand, *(c for root in roots for c in self._members[root])]
        else:
            return set()
        if not any(is_current_authoritative(c) for c in group):
            return set()
        return {c.rank for c in group if weak_reasons(c)} - self._out

    def accept(self, cand: Candidate, withheld: set[int]) -> None:
        """Add `cand`, with what `propose(cand)` returned."""
        if cand.record.topic:
            self._topics.setdefault(cand.record.topic, []).append(cand)
        elif cand.record.embedding is not None and self._threshold is not None:
            roots = self._linked_roots(cand)
            key = len(self._parent)
            self._vectors.add(key, cand.record.embedding)
            self._parent[key] = key
            self._members[key] = [cand, *(c for root in sorted(roots) for c in self._members.pop(root))]
            for root in roots:
                self._parent[root] = key
        self._proposed = None
        self._out |= withheld

    def _linked_roots(self, cand: Candidate) -> set[int]:
        """The groups (their roots) that `cand`'s embedding links to; the last answer is kept for `accept`."""
        if self._proposed is not None and self._proposed[0] is cand:
            return self._proposed[1]
        assert cand.record.embedding is not None and self._threshold is not None
        linked = self._vectors.at_least_all(cand.record.embedding, self._threshold)
        roots = {self._root(key) for key in linked}
        self._proposed = (cand, roots)
        return roots

    def _root(self, key: int) -> int:
        while self._parent[key] != key:
            self._parent[key] = self._parent[self._parent[key]]  # path halving
            key = self._parent[key]
        return key


def _member_groups(members: Sequence[tuple[str | None, Candidate]], embedding_threshold: float | None
                   ) -> list[tuple[str | None, list[tuple[str | None, Candidate]]]]:
    """The groups of records that answer the same question: by `topic`, else (records without one) by
    embeddings closer than the threshold; in order of first appearance."""
    groups: dict[str, list[tuple[str | None, Candidate]]] = {}
    loose: list[tuple[str | None, Candidate]] = []
    for handle, cand in members:
        if cand.record.topic:
            groups.setdefault(cand.record.topic, []).append((handle, cand))
        elif cand.record.embedding is not None and embedding_threshold is not None:
            loose.append((handle, cand))
    found: list[tuple[str | None, list[tuple[str | None, Candidate]]]] = list(groups.items())
    if embedding_threshold is not None:  # not `or`: a threshold of 0.0 is a threshold
        groups_of = _embedding_groups([c for _, c in loose], embedding_threshold)
        found += [(None, [loose[i] for i in idx]) for idx in groups_of]
    return found


def group_embeddings(embeddings: Sequence[tuple[float, ...]], threshold: float) -> list[list[int]]:
    """Single-link groups (two or more members) of embeddings at cosine >= threshold, as index lists: members
    in input order, groups in order of their first member. Embeddings of different lengths never group."""
    return _groups(components(embeddings, threshold))


def _groups(labels: Sequence[int]) -> list[list[int]]:
    """Indices sharing a label, in order of first appearance; singletons left out."""
    found: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        found.setdefault(label, []).append(i)
    return [members for members in found.values() if len(members) > 1]


@dataclass(frozen=True)
class _Grouped:
    """One grouping, kept so the next request for the same candidates reuses it. Weak references: the cache
    never keeps an assembly's records alive, and a candidate that died cannot be mistaken for a new one that
    took its address."""

    threshold: float
    members: tuple[weakref.ref[Candidate], ...]
    position: dict[int, int]  # id(candidate) -> index in members
    labels: tuple[int, ...]  # component label per member


_last = threading.local()  # per thread: concurrent assemblies never evict each other's grouping


def _embedding_groups(cands: Sequence[Candidate], threshold: float) -> list[list[int]]:
    """`group_embeddings` of the candidates' embeddings, computed once per assembly: the `edges-authority`
    order and the conflict report both ask for the groups of the same seated candidates (in rank order, then
    in seat order), and the second request reuses the first's components."""
    last: _Grouped | None = getattr(_last, "grouped", None)
    if last is not None and last.threshold == threshold and len(last.members) == len(cands):
        where = [last.position.get(id(c), -1) for c in cands]
        if len(set(where)) == len(cands) and all(p >= 0 and last.members[p]() is c for p, c in zip(where, cands)):
            return _groups([last.labels[p] for p in where])
    labels = components([c.record.embedding or () for c in cands], threshold)
    _last.grouped = _Grouped(threshold, tuple(weakref.ref(c) for c in cands),
                             {id(c): i for i, c in enumerate(cands)}, tuple(labels))
    return _groups(labels)


def notice_text(conflicts: Sequence[Conflict], topic_label: dict[str | None, str], *, style: str = "facts",
                mention_withheld: bool = False) -> str:
    """A short notice beside the sources: facts from metadata, never an answer. `facts` states which handle
    is what; `directive` states the same facts, then what to do with them (follow the current handle where
    the others differ, and say so): metadata says which record holds, never what the answer is. Withheld
    members appear only with `mention_withheld`, as one line per group (how many, and why not the answer)."""
    shown = [c for c in conflicts if c.others]
    mentioned = [c for c in conflicts if c.withheld and mention_withheld]
    if not shown and not mentioned:
        return ""
    lines = []
    if style == "directive":
        lines += [_directive(c, topic_label) for c in shown]
    elif shown:
        lines.append("Notice: some sources below cover the same question but differ in authority or validity.")
        for c in shown:
            weak = "; ".join(f"{h} is {' and '.join(r)}" for h, r in c.others)
            lines.append(f"- {weak}; {_current(c)} authoritative and current{_about(c, topic_label)}.")
    if mentioned:
        lines.append("Notice: sources that are not current or not authoritative were left out.")
        for c in mentioned:
            n = len(c.withheld)
            why = "; ".join(" and ".join(w.reasons) for w in c.withheld)
            lines.append(f"- {_current(c)} authoritative and current{_about(c, topic_label)}; {n} other "
                         f"source{'s' if n > 1 else ''} on the same question ({why}) {'were' if n > 1 else 'was'} "
                         "left out.")
    return "\n".join(lines)


def _current(c: Conflict) -> str:
    return f"{', '.join(c.current)} {'is' if len(c.current) == 1 else 'are'}"


def _about(c: Conflict, topic_label: dict[str | None, str]) -> str:
    return f" (topic: {topic_label[c.topic]})" if c.topic in topic_label else ""


def form_text(conflicts: Sequence[Conflict], topic_label: dict[str | None, str]) -> str:
    """The conflict groups as an answer form for after the question (`conflict_form`): the answer line, then
    one line per group that names the weak handles with their reasons and the current one, and leaves what the
    weak sources say for the model to fill in. Metadata only: it says which record holds, never the answer."""
    conflicts = [c for c in conflicts if c.others]  # a withheld member has nothing left to fill in
    if not conflicts:
        return ""
    lines = ["Reply in this form:",
             f"Answer: <the answer, with the handle of its source, such as [{conflicts[0].current[0]}], after "
             "each claim>"]
    for c in conflicts:
        weak = " and ".join(f"[{h}] ({', '.join(r)})" for h, r in c.others)
        says = "says <what it says>" if len(c.others) == 1 else "say <what they say>"
        cur = " and ".join(f"[{h}]" for h in c.current)
        holds = "holds" if len(c.current) == 1 else "hold"
        about = f" on {topic_label[c.topic]}" if c.topic in topic_label else ""
        lines.append(f"Conflict{about}: {weak} {says}, but {cur} (authoritative, current) {holds}.")
    return "\n\n" + "\n".join(lines)


def _directive(c: Conflict, topic_label: dict[str | None, str]) -> str:
    cur = " and ".join(c.current)
    weak = ", ".join(f"{h} ({', '.join(r)})" for h, r in c.others)
    names = " and ".join(h for h, _ in c.others)
    about = f" on {topic_label[c.topic]}" if c.topic in topic_label else ""
    verb = "is" if len(c.current) == 1 else "are"
    return (f"Conflict check{about}: {cur} {verb} authoritative and current; {weak} cover the same question. "
            f"Where they differ, answer from {cur}, cite it, and say that {names} "
            f"{'is' if len(c.others) == 1 else 'are'} not current or not authoritative.")
