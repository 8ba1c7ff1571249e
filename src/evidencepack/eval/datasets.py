"""Datasets for the two experiments: trap sets (stale guidance) and position sweeps (lost in the middle).

Retrieval is held fixed in both: a trap question names its records in rank order, and a sweep item moves
one gold record through every seat while every other record and the question stay the same. That is what
makes a difference between conditions attributable to the assembly and not to the retriever.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import safejson
from ..errors import DatasetError as DatasetError  # re-exported: eval's public error
from ..records.record import Record

TRAP_REQUIRED = ("id", "question", "as_of", "records", "current", "stale")  # `current`, `stale`: unless unanswerable
TRAP_OPTIONAL = ("current_value", "stale_value", "trap", "gold", "surfaced", "yes_no", "unanswerable", "neighbour",
                 "missing")
# An unanswerable question (no retrieved record answers it) has no rule to assert: these keys are its own, and
# `current`/`stale` may be left out (or empty); the keys that describe a current or stale rule are errors there.
UNANSWERABLE_ONLY = ("neighbour", "missing")
ANSWERABLE_ONLY = ("current_value", "stale_value", "trap", "gold", "surfaced", "yes_no")
# ../shared/ beside a source checkout (the project's workspace); override with $EVIDENCEPACK_LITM_DIR.
DEFAULT_LITM_DIR = Path(os.environ.get("EVIDENCEPACK_LITM_DIR")
                        or Path(__file__).resolve().parents[4] / "shared" / "data" / "lost-in-the-middle")


@dataclass(frozen=True)
class TrapQuestion:
    """One trap question: retrieval fixed (record ids in rank order) plus the judge's patterns."""

    id: str
    question: str
    as_of: str
    records: tuple[str, ...]
    current: tuple[str, ...]
    stale: tuple[str, ...]
    current_value: str = ""
    stale_value: str = ""
    trap: str | None = None
    gold: str | None = None
    surfaced: tuple[str, ...] = ()
    yes_no: str | None = None  # a yes/no question's current answer ("yes" or "no"); None: not a yes/no question
    # No retrieved record answers the question: the right first answer is to say so (`judge`: abstained/invented).
    unanswerable: bool = False
    neighbour: tuple[str, ...] = ()  # regexes of a neighbouring value the records do state (a tempting transplant)
    missing: str = ""  # one line for readers: what the records do not say

    @property
    def verdict_word(self) -> str | None:
        """The current answer of a yes/no question: `yes_no`, else the word `current_value` opens with
        ("no; company vehicles are ..."), else None."""
        if self.yes_no is not None:
            return self.yes_no
        head = re.match(r"\s*(yes|no)\b\s*[;:,.\u2014-]", self.current_value, re.IGNORECASE)
        return head.group(1).lower() if head else None

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()
                if k not in _OMITTED_DEFAULTS or v != _OMITTED_DEFAULTS[k]}  # older results carry no such keys


_OMITTED_DEFAULTS: dict[str, Any] = {"yes_no": None, "unanswerable": False, "neighbour": (), "missing": ""}


def _patterns(value: Any, key: str, where: str, *, required: bool) -> tuple[str, ...]:
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value) or (required and not value):
        raise DatasetError(f"{where}: {key!r} must be a non-empty list of regex strings")
    for p in value:
        try:
            re.compile(p, re.IGNORECASE)
        except re.error as err:
            raise DatasetError(f"{where}: bad regex in {key!r}: {p!r} ({err})") from None
    return tuple(value)


def parse_trap(data: Mapping[str, Any], *, where: str = "trap", known_ids: Iterable[str] | None = None
               ) -> TrapQuestion:
    """Validate one trap-set object. `known_ids` (the corpus) catches typos in record ids early."""
    _check_trap_keys(data, where)
    where = f"{where} ({data['id']})"
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", data["as_of"]):
        raise DatasetError(f"{where}: 'as_of' must be YYYY-MM-DD, got {data['as_of']!r}")
    ids = data["records"]
    _check_trap_records(ids, where, known_ids)
    if data.get("unanswerable"):
        return _parse_unanswerable(data, where)
    given = [k for k in UNANSWERABLE_ONLY if k in data]
    if given:
        raise DatasetError(f"{where}: {', '.join(map(repr, given))}: only for a question with \"unanswerable\": true")
    for key in ("trap", "gold"):
        if data.get(key) is not None and data[key] not in ids:
            raise DatasetError(f"{where}: {key!r} {data[key]!r} is not one of its 'records'")
    for key in ("current_value", "stale_value"):
        if not isinstance(data.get(key, ""), str):
            raise DatasetError(f"{where}: {key!r} must be a string")
    if data.get("yes_no") not in (None, "yes", "no"):
        raise DatasetError(f"{where}: 'yes_no' must be \"yes\" or \"no\" (the current answer), got {data['yes_no']!r}")
    return TrapQuestion(
        id=data["id"], question=data["question"], as_of=data["as_of"], records=tuple(ids),
        current=_patterns(data["current"], "current", where, required=True),
        stale=_patterns(data["stale"], "stale", where, required=True),
        current_value=data.get("current_value", ""), stale_value=data.get("stale_value", ""),
        trap=data.get("trap"), gold=data.get("gold"),
        surfaced=_patterns(data.get("surfaced"), "surfaced", where, required=False), yes_no=data.get("yes_no"),
    )


def _parse_unanswerable(data: Mapping[str, Any], where: str) -> TrapQuestion:
    """A question no retrieved record answers: no current or stale rule (`current`/`stale` absent or empty), none
    of the keys that describe one, and optionally `neighbour` patterns and a `missing` line."""
    for key in ("current", "stale"):
        if data.get(key) not in (None, []):
            raise DatasetError(f"{where}: an unanswerable question has no {key} rule: leave {key!r} out or empty"
                               + (" (a value the records state nearby goes in 'neighbour')" if key == "stale" else ""))
    wrong = [k for k in ANSWERABLE_ONLY if data.get(k) is not None]
    if wrong:
        raise DatasetError(f"{where}: an unanswerable question has no current or stale rule, so "
                           f"{', '.join(map(repr, wrong))} cannot be given (a refusal is its right answer)")
    if not isinstance(data.get("missing", ""), str):
        raise DatasetError(f"{where}: 'missing' must be a string")
    return TrapQuestion(
        id=data["id"], question=data["question"], as_of=data["as_of"], records=tuple(data["records"]),
        current=(), stale=(), unanswerable=True,
        neighbour=_patterns(data.get("neighbour"), "neighbour", where, required=False),
        missing=data.get("missing", ""),
    )


def _check_trap_keys(data: Any, where: str) -> None:
    """An object with every required key, no unknown one, and the three strings that name it."""
    if not isinstance(data, Mapping):
        raise DatasetError(f"{where}: a trap must be a JSON object")
    if not isinstance(data.get("unanswerable", False), bool):
        raise DatasetError(f"{where}: 'unanswerable' must be true or false, got {data['unanswerable']!r}")
    missing = [k for k in TRAP_REQUIRED if k not in data
               and not (k in ("current", "stale") and data.get("unanswerable") is True)]
    if missing:
        raise DatasetError(f"{where}: missing key(s) {', '.join(missing)}")
    unknown = sorted(set(data) - set(TRAP_REQUIRED) - set(TRAP_OPTIONAL))
    if unknown:
        raise DatasetError(f"{where}: unknown key(s) {', '.join(unknown)}")
    for key in ("id", "question", "as_of"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise DatasetError(f"{where}: {key!r} must be a non-empty string")


def _check_trap_records(ids: Any, where: str, known_ids: Iterable[str] | None) -> None:
    """The retrieval: record ids in rank order, each once, each in the corpus when the corpus is given."""
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise DatasetError(f"{where}: 'records' must be a non-empty list of record ids in rank order")
    if len(set(ids)) != len(ids):
        raise DatasetError(f"{where}: 'records' lists an id twice")
    if known_ids is not None:
        known = set(known_ids)
        absent = [i for i in ids if i not in known]
        if absent:
            raise DatasetError(f"{where}: record id(s) not in the corpus: {', '.join(absent)}")


def load_traps(path: str | Path | None = None, *, corpus: Sequence[Record] | None = None) -> list[TrapQuestion]:
    """Load a trap-set JSONL file (default: the bundled HR set), checking every line against the corpus."""
    if path is None:
        from ..data import traps

        rows: list[tuple[int, Any]] = list(enumerate(traps(), 1))
        name = "hr_traps.jsonl"
    else:
        p = Path(path)
        if not p.is_file():
            raise DatasetError(f"trap set not found: {p}")
        name = p.name
        rows = []
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            rows.append((n, safejson.loads(line, name=f"{name} line {n}", error=DatasetError)))
    known = [r.id for r in corpus] if corpus is not None else None
    out = [parse_trap(d, where=f"{name} line {n}", known_ids=known) for n, d in rows]
    seen: set[str] = set()
    for t in out:
        if t.id in seen:
            raise DatasetError(f"{name}: question id {t.id!r} appears twice")
        seen.add(t.id)
    if not out:
        raise DatasetError(f"{name}: no questions")
    return out


# ---------------------------------------------------------------- position sweep


@dataclass(frozen=True)
class SweepItem:
    """One prompt of a sweep. `records` are dicts with explicit ranks; `position` is the gold seat (1-based)
    for `ranked`, None for `edges`/`alternate` (gold is rank 1 there) and for `closed_book` (no records)."""

    qid: str
    condition: str  # "ranked" | "edges" | "alternate" | "closed_book"
    question: str
    answers: tuple[str, ...]
    records: tuple[Mapping[str, Any], ...] = ()
    gold_id: str | None = None
    position: int | None = None
    task: str = "kv"
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def order(self) -> str:
        return "ranked" if self.condition in ("ranked", "closed_book") else self.condition


@dataclass(frozen=True)
class SweepQuestion:
    """A question, its gold record and its fixed distractors (in their fixed relative order)."""

    qid: str
    question: str
    answers: tuple[str, ...]
    gold: Mapping[str, Any]
    distractors: tuple[Mapping[str, Any], ...]
    task: str


def _open_jsonl_gz(path: Path) -> Iterable[dict[str, Any]]:
    if not path.is_file():
        raise DatasetError(f"sweep data not found: {path} (the lost-in-the-middle files live in ../shared/data/)")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield safejson.loads(line, name=path.name, error=DatasetError)


def kv_questions(path: str | Path | None = None, *, k: int = 9, questions: int = 10, seed: int = 0
                 ) -> list[SweepQuestion]:
    """Key-value retrieval: each record is one JSON pair `{"key": "value"}` (UUIDs); the question names
    one key. The k distractors are other pairs of the same example, so nothing but position changes."""
    path = Path(path) if path else DEFAULT_LITM_DIR / "kv-retrieval-75_keys.jsonl.gz"
    rng = random.Random(seed)
    out: list[SweepQuestion] = []
    for n, ex in enumerate(_open_jsonl_gz(path)):
        if len(out) >= questions:
            break
        pairs = [tuple(p) for p in ex["ordered_kv_records"]]
        others = [p for p in pairs if p[0] != ex["key"]]
        if len(others) < k:
            raise DatasetError(f"{path.name} example {n}: only {len(others)} distractor pairs, k={k}")
        chosen = rng.sample(others, k)
        qid = f"kv-{n}"
        out.append(SweepQuestion(
            qid=qid,
            question=f'What is the value associated with the key "{ex["key"]}"? Give the value only.',
            answers=(ex["value"],),
            gold={"id": f"{qid}-gold", "text": json.dumps({ex["key"]: ex["value"]})},
            distractors=tuple({"id": f"{qid}-d{i}", "text": json.dumps({a: b})}
                              for i, (a, b) in enumerate(chosen, 1)),
            task="kv",
        ))
    return out


def nq_questions(path: str | Path | None = None, *, k: int = 9, questions: int = 10, seed: int = 0
                 ) -> list[SweepQuestion]:
    """NaturalQuestions-Open: the question's gold Wikipedia passage plus k other questions' gold passages
    as distractors (skipping any that contain one of this question's answers)."""
    path = Path(path) if path else DEFAULT_LITM_DIR / "nq-open-oracle.jsonl.gz"
    rows = list(_open_jsonl_gz(path))
    rng = random.Random(seed)
    picked = rng.sample(range(len(rows)), min(questions, len(rows)))
    out: list[SweepQuestion] = []
    for n in picked:
        ex = rows[n]
        gold = next((c for c in ex["ctxs"] if c.get("isgold", True)), ex["ctxs"][0])
        answers = tuple(ex["answers"])
        distractors: list[Mapping[str, Any]] = []
        while len(distractors) < k:
            m = rng.randrange(len(rows))
            if m == n:
                continue
            ctx = rows[m]["ctxs"][0]
            if any(normalise(a) in normalise(ctx["text"]) for a in answers):
                continue
            distractors.append({"id": f"nq-{n}-d{len(distractors) + 1}", "text": ctx["text"], "doc": ctx["title"]})
        out.append(SweepQuestion(
            qid=f"nq-{n}", question=ex["question"].rstrip("?") + "? Answer in a few words.", answers=answers,
            gold={"id": f"nq-{n}-gold", "text": gold["text"], "doc": gold["title"]},
            distractors=tuple(distractors), task="nq",
        ))
    return out


def normalise(text: str) -> str:
    """Lower case, no punctuation or articles, single spaces: the paper's answer matching."""
    text = re.sub(r"\b(a|an|the)\b", " ", re.sub(r"[^\w\s]", " ", text.lower()))
    return " ".join(text.split())


def spread_seats(n_seats: int, count: int | None) -> list[int]:
    """`count` seats spread evenly over 1..n_seats, always the first and the last (all seats when `count` is
    None or covers them): a long sweep can sample the curve at a fraction of the calls."""
    if count is None or count >= n_seats:
        return list(range(1, n_seats + 1))
    if count < 2:
        raise DatasetError(f"seats must be at least 2 (the first and the last), got {count}")
    return sorted({1 + round(i * (n_seats - 1) / (count - 1)) for i in range(count)})


def sweep_items(qs: Sequence[SweepQuestion], *, seed: int = 0,
                conditions: Sequence[str] = ("ranked", "edges", "alternate", "closed_book"),
                seats: int | None = None) -> list[SweepItem]:
    """Expand questions into prompts. `ranked`: gold at every seat 1..k+1 (or `seats` of them, spread evenly),
    distractors in their fixed order around it. `edges`/`alternate`: gold is rank 1 and the distractors are
    shuffled (seeded) into ranks 2..k+1, so the library's order decides the seat. `closed_book`: no records
    (the floor)."""
    items: list[SweepItem] = []
    for q in qs:
        k = len(q.distractors)
        if "ranked" in conditions:
            # Highest position first: consecutive prompts then share the longest prefix (server KV cache).
            for pos in reversed(spread_seats(k + 1, seats)):
                seq = list(q.distractors[: pos - 1]) + [q.gold] + list(q.distractors[pos - 1:])
                recs = tuple({**r, "rank": i} for i, r in enumerate(seq, 1))
                items.append(SweepItem(q.qid, "ranked", q.question, q.answers, recs, q.gold["id"], pos, q.task))
        for cond in ("edges", "alternate"):
            if cond in conditions:
                rng = random.Random(f"{seed}:{q.qid}:{cond}")
                shuffled = list(q.distractors)
                rng.shuffle(shuffled)
                recs = tuple({**r, "rank": i} for i, r in enumerate([q.gold, *shuffled], 1))
                items.append(SweepItem(q.qid, cond, q.question, q.answers, recs, q.gold["id"], None, q.task))
        if "closed_book" in conditions:
            items.append(SweepItem(q.qid, "closed_book", q.question, q.answers, (), None, None, q.task))
    return items


def sweep_correct(answer: str, answers: Sequence[str]) -> bool:
    """Correct when any gold answer appears in the model's answer (normalised substring), as in the paper."""
    norm = normalise(answer)
    return any(normalise(a) and normalise(a) in norm for a in answers)
