"""Trap-set validation and the position-sweep builders (seats checked through the real assembler)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from evidencepack import Layout, assemble
from evidencepack.data.demo import corpus
from evidencepack.eval.datasets import (
    DatasetError,
    SweepQuestion,
    kv_questions,
    load_traps,
    normalise,
    nq_questions,
    parse_trap,
    spread_seats,
    sweep_correct,
    sweep_items,
)
from evidencepack.eval.experiments import EVAL_KEY

GOOD = {"id": "q1", "question": "Can I?", "as_of": "2026-06-01", "records": ["a", "b"], "current": ["no"],
        "stale": ["yes"], "trap": "a", "gold": "b"}


def test_bundled_trap_set_is_valid() -> None:
    traps = load_traps(corpus=corpus())
    assert len(traps) == 25 and len({t.id for t in traps}) == 25
    assert all(t.trap in t.records and t.gold in t.records for t in traps)


@pytest.mark.parametrize(("change", "message"), [
    ({"records": []}, "non-empty list of record ids"),
    ({"records": ["a", "a"]}, "lists an id twice"),
    ({"current": []}, "'current' must be a non-empty list"),
    ({"stale": ["(unclosed"]}, "bad regex in 'stale'"),
    ({"as_of": "June 1"}, "YYYY-MM-DD"),
    ({"trap": "zzz"}, "'trap' 'zzz' is not one of its 'records'"),
    ({"colour": "red"}, "unknown key"),
    ({"surfaced": "conflict"}, "'surfaced' must be a non-empty list"),
])
def test_trap_validation_errors_name_the_problem(change: dict, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        parse_trap({**GOOD, **change}, where="set.jsonl line 3")


def test_trap_missing_key_and_unknown_record(tmp_path: Path) -> None:
    bad = {k: v for k, v in GOOD.items() if k != "stale"}
    with pytest.raises(DatasetError, match="line 1: missing key"):
        parse_trap(bad, where="line 1")
    with pytest.raises(DatasetError, match="not in the corpus: b"):
        parse_trap(GOOD, known_ids=["a"])
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps(GOOD) + "\n{oops\n")
    with pytest.raises(DatasetError, match="t.jsonl line 2 is not JSON"):
        load_traps(f)
    f.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n")
    with pytest.raises(DatasetError, match="appears twice"):
        load_traps(f)
    with pytest.raises(DatasetError, match="not found"):
        load_traps(tmp_path / "missing.jsonl")


def _toy(k: int) -> SweepQuestion:
    return SweepQuestion("toy", 'What is the value associated with the key "g"? Give the value only.', ("G-VALUE",),
                         {"id": "gold", "text": '{"g": "G-VALUE"}'},
                         tuple({"id": f"d{i}", "text": json.dumps({f"k{i}": f"v{i}-{'x' * i}"})}
                               for i in range(1, k + 1)), "kv")


@pytest.mark.parametrize("k", [9, 19])
def test_sweep_moves_only_the_gold_record(k: int) -> None:
    items = sweep_items([_toy(k)], seed=3)
    ranked = [i for i in items if i.condition == "ranked"]
    assert sorted(i.position for i in ranked) == list(range(1, k + 2))
    for item in ranked:
        a = assemble(list(item.records), item.question, as_of="2026-06-01", boundary_key=EVAL_KEY,
                     layout=Layout(order="ranked", profile="minimal", conflict_notice=False))
        seats = {m.id: m.position for m in a.manifest}
        assert seats["gold"] == item.position and len(seats) == k + 1
        others = [m.id for m in sorted(a.manifest, key=lambda m: m.position) if m.id != "gold"]
        assert others == [f"d{i}" for i in range(1, k + 1)]  # everything else fixed
    for cond in ("edges", "alternate"):
        (item,) = [i for i in items if i.condition == cond]
        assert item.records[0]["id"] == "gold" and item.records[0]["rank"] == 1
        a = assemble(list(item.records), item.question, as_of="2026-06-01", boundary_key=EVAL_KEY,
                     layout=Layout(order=cond, profile="minimal"))
        assert next(m.position for m in a.manifest if m.id == "gold") == 1
    (cb,) = [i for i in items if i.condition == "closed_book"]
    assert cb.records == ()
    assert sweep_items([_toy(k)], seed=3) == items  # seeded


@pytest.mark.parametrize("n_seats,count,expected", [
    (20, 5, [1, 6, 11, 15, 20]), (30, 5, [1, 8, 15, 23, 30]), (20, 2, [1, 20]), (3, 5, [1, 2, 3]),
    (10, None, list(range(1, 11))),
])
def test_spread_seats(n_seats: int, count: int | None, expected: list[int]) -> None:
    assert spread_seats(n_seats, count) == expected


def test_a_sampled_sweep_asks_the_spread_seats_last_first() -> None:
    items = sweep_items([_toy(19)], seed=3, conditions=("ranked",), seats=5)
    assert [i.position for i in items] == [20, 15, 11, 6, 1]  # descending: consecutive prompts share a prefix
    with pytest.raises(DatasetError, match="at least 2"):
        sweep_items([_toy(19)], conditions=("ranked",), seats=1)


def test_answer_matching() -> None:
    assert normalise("The Wilhelm Röntgen!") == "wilhelm röntgen"
    assert sweep_correct("It was Wilhelm Röntgen.", ["wilhelm röntgen"])
    assert not sweep_correct("Marie Curie", ["Wilhelm Röntgen"])
    assert not sweep_correct("", [""])


def test_kv_builder_on_a_small_file(tmp_path: Path) -> None:
    pairs = [[f"key-{i}", f"val-{i}"] for i in range(12)]
    f = tmp_path / "kv.jsonl.gz"
    with gzip.open(f, "wt") as fh:
        for n in range(3):
            fh.write(json.dumps({"ordered_kv_records": pairs, "key": f"key-{n}", "value": f"val-{n}"}) + "\n")
    qs = kv_questions(f, k=9, questions=2, seed=1)
    assert [q.qid for q in qs] == ["kv-0", "kv-1"] and all(len(q.distractors) == 9 for q in qs)
    assert all("key-0" not in d["text"] for d in qs[0].distractors)
    with pytest.raises(DatasetError, match="only 11 distractor pairs"):
        kv_questions(f, k=19, questions=1)
    with pytest.raises(DatasetError, match="not found"):
        kv_questions(tmp_path / "none.jsonl.gz")


def test_shared_kv_and_nq_data(shared: Path) -> None:
    d = shared / "data" / "lost-in-the-middle"
    kv = kv_questions(d / "kv-retrieval-75_keys.jsonl.gz", k=19, questions=2)
    assert len(kv) == 2 and len(kv[0].distractors) == 19
    assert kv[0].answers[0] in kv[0].gold["text"]
    nq = nq_questions(d / "nq-open-oracle.jsonl.gz", k=9, questions=2, seed=0)
    assert len(nq) == 2 and len(nq[0].distractors) == 9
    for q in nq:
        assert not any(sweep_correct(x["text"], q.answers) for x in q.distractors)
