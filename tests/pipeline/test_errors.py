"""One error module: every class there, its old import locations, its built-in bases, and each user mistake
that used to raise a bare ValueError raising its EvidencepackError subclass instead."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evidencepack import assemble, errors
from evidencepack.data import corpus
from evidencepack.errors import DatasetError, EvidencepackError, IntegrationInputError, OptionError, RecordError
from evidencepack.eval.backends import Sampling, ScriptedBackend
from evidencepack.eval.datasets import SweepQuestion, load_traps, sweep_items
from evidencepack.eval.experiments import SweepRun, TrapRun, condition_options, guard_kinds
from evidencepack.integrations.adapters import from_haystack, from_langchain, from_llamaindex
from evidencepack.records.vectors import cosine
from evidencepack.render.prompts import system_prompt

CLASSES = {name: obj for name, obj in vars(errors).items()
           if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == errors.__name__}


def test_every_error_class_is_an_evidencepack_error_and_is_in_the_tree() -> None:
    assert len(CLASSES) >= 15
    doc = errors.__doc__ or ""
    for name, cls in CLASSES.items():
        assert issubclass(cls, EvidencepackError), name
        assert re.search(rf"(?m)^\s*(?:[├└]── )?{name}\b", doc), f"{name} is not in errors.py's tree"


@pytest.mark.parametrize(("module", "name"), [
    ("evidencepack.cli", "UsageError"),
    ("evidencepack.integrations", "IntegrationInputError"),
    ("evidencepack.integrations", "MissingExtraError"),
    ("evidencepack.eval.backends", "BackendError"),
    ("evidencepack.eval.datasets", "DatasetError"),
    ("evidencepack.eval", "DatasetError"),
])
def test_the_old_import_locations_still_work(module: str, name: str) -> None:
    mod = __import__(module, fromlist=[name])
    assert getattr(mod, name) is getattr(errors, name)


def test_provider_error_is_the_same_class_from_both_places() -> None:
    providers = pytest.importorskip("evidencepack.integrations.providers")
    assert providers.ProviderError is errors.ProviderError


@pytest.mark.parametrize(("name", "builtin"), [
    ("RecordError", ValueError), ("OptionError", ValueError), ("BudgetError", ValueError),
    ("BoundaryKeyError", ValueError), ("TokenizerError", ValueError), ("AssemblyFormatError", ValueError),
    ("DatasetError", ValueError), ("CitationInputError", ValueError), ("IntegrationInputError", ValueError),
    ("MissingExtraError", ImportError), ("ProviderError", TypeError), ("BackendError", RuntimeError),
])
def test_each_class_keeps_the_builtin_base_callers_may_catch(name: str, builtin: type[Exception]) -> None:
    assert issubclass(CLASSES[name], builtin)


# ---------------------------------------------------------------- the converted raise sites

def _toy_sweep() -> SweepQuestion:
    return SweepQuestion("kv-0", "What is the value of k0?", ("v0",), {"id": "gold", "text": '{"k0": "v0"}'},
                         tuple({"id": f"d{i}", "text": f'{{"k{i}": "v{i}"}}'} for i in range(1, 5)), "kv")


def _sweep_item_with_a_dropped_record() -> None:
    item = sweep_items([_toy_sweep()], conditions=("ranked",))[0]
    copy = {**item.records[0], "id": "copy", "rank": len(item.records) + 1}  # a duplicate: dedup drops it
    records = (*item.records, copy)
    SweepRun(ScriptedBackend(), [], Sampling()).messages(dataclasses.replace(item, records=records))


def _sweep_item_seated_elsewhere() -> None:
    item = sweep_items([_toy_sweep()], conditions=("ranked",))[0]
    SweepRun(ScriptedBackend(), [], Sampling()).messages(dataclasses.replace(item, position=(item.position or 1) + 1))


def _trap_run(**kw: Any) -> TrapRun:
    return TrapRun(ScriptedBackend(), load_traps()[:1], corpus(), Sampling(), **kw)


def _labelled_sentence_citing_a_record_not_in_the_prompt(tmp_path: Path) -> None:
    from evidencepack.eval.claims_eval import measure

    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"trap": load_traps()[0].id, "sentence": "Something.", "support": [],
                                "cites": ["no-such-record"], "values": []}) + "\n", encoding="utf-8")
    measure(path)


def _check_token_counts_with_an_unknown_condition() -> None:
    from evidencepack.eval.tokens import check_token_counts

    check_token_counts(ScriptedBackend(), [], [], None, conditions=("structured", "nonsense"))  # type: ignore[arg-type]


def _system(**kw: Any) -> Callable[[], object]:
    base: dict[str, Any] = {"boundary": "b", "as_of": "2026-01-01", "prefix": "S", "conflict_policy": "surface",
                            "flat": False}
    return lambda: system_prompt(None, **{**base, **kw})


SITES: list[tuple[str, type[EvidencepackError], Callable[..., object], str]] = [
    ("records.vectors.cosine", RecordError, lambda: cosine((1.0, 0.0), (1.0,)), "different lengths"),
    ("assemble: embeddings of different lengths", RecordError,
     lambda: assemble([{"id": "a", "text": "the cat sat on the mat", "embedding": [1, 0, 0]},
                       {"id": "b", "text": "the cat sat on the mat!", "embedding": [1, 0]}], "q", as_of="2026-01-01"),
     "field 'embedding'"),
    ("render.prompts: conflict_policy", OptionError, _system(conflict_policy="nope"), "conflict_policy"),
    ("render.prompts: abstain", OptionError, _system(abstain="nope"), "abstain"),
    ("adapters: langchain score_kind", IntegrationInputError, lambda: from_langchain([], score_kind="bad"),  # type: ignore[arg-type]
     "score_kind"),
    ("adapters: llamaindex score_kind", IntegrationInputError, lambda: from_llamaindex([], score_kind="bad"),  # type: ignore[arg-type]
     "score_kind"),
    ("adapters: haystack score_kind", IntegrationInputError, lambda: from_haystack([], score_kind="bad"),  # type: ignore[arg-type]
     "score_kind"),
    ("condition: unknown base", OptionError, lambda: condition_options("nonsense"), "a condition starts with"),
    ("condition: unknown variant", OptionError, lambda: condition_options("structured+nonsense"), "variant"),
    ("condition: repeated variant", OptionError, lambda: condition_options("structured+guard+guard"), "repeated"),
    ("condition: flat takes only +exclude", OptionError, lambda: condition_options("flat+guard"), "flat baseline"),
    ("guard kinds: unknown", OptionError, lambda: guard_kinds("stale_only,nonsense"), "guard kind"),
    ("guard kinds: none", OptionError, lambda: guard_kinds(""), "none given"),
    ("TrapRun: guard_repair", OptionError, lambda: _trap_run(guard_repair="nonsense").run(), "guard_repair"),
    ("TrapRun: unknown condition", OptionError, lambda: _trap_run(conditions=("nonsense",)).run(), "condition"),
    ("eval.tokens: unknown condition", OptionError, _check_token_counts_with_an_unknown_condition, "nonsense"),
    ("SweepRun: a record dropped", DatasetError, _sweep_item_with_a_dropped_record, "must keep every record"),
    ("SweepRun: gold seated elsewhere", DatasetError, _sweep_item_seated_elsewhere, "gold seated at"),
]


@pytest.mark.parametrize(("what", "cls", "call", "match"), SITES, ids=[s[0] for s in SITES])
def test_a_user_mistake_raises_its_evidencepack_error(what: str, cls: type[EvidencepackError],
                                                      call: Callable[[], object], match: str) -> None:
    with pytest.raises(cls, match=match):
        call()


def test_a_labelled_sentence_citing_a_record_outside_the_prompt_is_a_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not in the"):
        _labelled_sentence_citing_a_record_not_in_the_prompt(tmp_path)


def test_no_bare_builtin_raise_is_left_in_the_modules_converted_here() -> None:
    src = Path(errors.__file__).parent
    converted = ["records/vectors.py", "render/prompts.py", "integrations/adapters.py", "eval/tokens.py",
                 "eval/claims_eval.py", "eval/experiments.py", "tokens/target.py"]
    for rel in converted:
        text = (src / rel).read_text(encoding="utf-8")
        for builtin in ("ValueError", "TypeError", "KeyError"):
            assert f"raise {builtin}(" not in text, f"{rel} still raises a bare {builtin}"
