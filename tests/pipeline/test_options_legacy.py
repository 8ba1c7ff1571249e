"""The flat keyword names of 1.x (`assemble(..., order="edges")`) keep working for one release: each warns,
naming the new spelling, and gives the bytes the new spelling gives."""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any

import pytest

from evidencepack import Admission, Dedup, Layout, OptionError, Options, assemble
from evidencepack.data import corpus
from evidencepack.options import LegacyOptions, option_rows

AS_OF = "2026-06-01"
KEY = b"options-test-key-not-a-secret-0000"
RECORDS = [r.to_dict() for r in corpus()[:24]]
QUESTION = "Does unused PTO carry over?"

#: (old keyword and value, the new spelling, the group it names in the warning)
CASES: list[tuple[dict[str, Any], dict[str, Any], str]] = [
    ({"order": "edges"}, {"layout": Layout(order="edges")}, "layout=Layout(order=...)"),
    ({"format": "text"}, {"layout": Layout(format="text")}, "layout=Layout(format=...)"),
    ({"profile": ["doc", "status"]}, {"layout": Layout(profile=("doc", "status"))}, "layout=Layout(profile=...)"),
    ({"clearance": "confidential"}, {"admission": Admission(clearance="confidential")},
     "admission=Admission(clearance=...)"),
    ({"exclude_expired": True}, {"admission": Admission(exclude_expired=True)}, "Admission(exclude_expired=...)"),
    ({"exclude_not_yet_valid": True}, {"admission": Admission(exclude_not_yet_valid=True)},
     "Admission(exclude_not_yet_valid=...)"),
    ({"exclude_superseded": True}, {"admission": Admission(exclude_superseded=True)},
     "Admission(exclude_superseded=...)"),
    ({"dedup_threshold": 0.9}, {"dedup": Dedup(threshold=0.9)}, "dedup=Dedup(threshold=...)"),
    ({"embedding_cutoff": None}, {"dedup": Dedup(embedding_cutoff=None)}, "dedup=Dedup(embedding_cutoff=...)"),
    ({"conflict_policy": "resolve"}, {"layout": Layout(conflict_policy="resolve")}, "Layout(conflict_policy=...)"),
    ({"abstain": "if-unanswered"}, {"layout": Layout(abstain="if-unanswered")}, "Layout(abstain=...)"),
    ({"conflict_notice": False}, {"layout": Layout(conflict_notice=False)}, "Layout(conflict_notice=...)"),
    ({"conflict_embedding_threshold": None}, {"layout": Layout(conflict_embedding_threshold=None)},
     "Layout(conflict_embedding_threshold=...)"),
    ({"system_template": "Code $boundary."}, {"layout": Layout(system_template="Code $boundary.")},
     "Layout(system_template=...)"),
    ({"handle_prefix": "Src"}, {"layout": Layout(handle_prefix="Src")}, "Layout(handle_prefix=...)"),
    ({"marking": "datamark"}, {"layout": Layout(marking="datamark")}, "Layout(marking=...)"),
    ({"injection_threshold": 0.5}, {"admission": Admission(injection_threshold=0.5)},
     "Admission(injection_threshold=...)"),
    ({"strict": True}, {"admission": Admission(strict=True)}, "Admission(strict=...)"),
    ({"on_invalid": "drop"}, {"admission": Admission(on_invalid="drop")}, "Admission(on_invalid=...)"),
    ({"notice_placement": "question"}, {"layout": Layout(notice_placement="question")},
     "Layout(notice_placement=...)"),
    ({"notice_style": "directive"}, {"layout": Layout(notice_style="directive")}, "Layout(notice_style=...)"),
    ({"reminder": True}, {"layout": Layout(reminder=True)}, "Layout(reminder=...)"),
    ({"scaffold": True}, {"layout": Layout(answer_form="scaffold")}, "Layout(answer_form='scaffold')"),
    ({"example": True}, {"layout": Layout(example=True)}, "Layout(example=...)"),
    ({"neutralise_question": False}, {"layout": Layout(neutralise_question=False)},
     "Layout(neutralise_question=...)"),
]


def test_the_cases_cover_every_old_name() -> None:
    assert {k for old, _, _ in CASES for k in old} | {"conflict_form"} == set(LegacyOptions.__annotations__)
    # The old names are settings keys of the groups other than the budget (which was always a `Budget`); an option
    # added later has no flat keyword.
    keys = {k for r in option_rows() if r.group not in ("", "budget") for k in r.spec.settings_keys(r.name)}
    assert set(LegacyOptions.__annotations__) <= keys


@pytest.mark.parametrize("old, new, spelling", CASES, ids=lambda c: next(iter(c)) if isinstance(c, dict) else "")
def test_an_old_name_warns_with_the_new_spelling_and_gives_the_same_bytes(old: dict[str, Any], new: dict[str, Any],
                                                                          spelling: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"assemble\\({next(iter(old))}=\\.\\.\\.\\) is deprecated") as rec:
        a = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, **old)
    assert len(rec) == 1 and spelling in str(rec[0].message)
    assert rec[0].filename == __file__  # the warning points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, **new)
    assert a.to_json() == b.to_json()


def test_old_names_apply_on_top_of_a_group_given() -> None:
    with pytest.warns(DeprecationWarning):
        a = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, layout=Layout.preset("original"),
                     format="xml")
    assert a.format == "xml" and a.report.settings["order"] == "edges"


def test_the_old_conflict_form_name_needs_a_policy_that_shows_the_conflicts() -> None:
    """The conflict form lists each conflict for the model to name; the default policy withholds the weak members,
    so on its own the old keyword is refused with the fix, and on top of `surface` it gives the same bytes."""
    surface = Layout(conflict_policy="surface")
    with pytest.warns(DeprecationWarning, match="Layout\\(answer_form='conflict_form'\\)"):
        a = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, layout=surface,
                     conflict_form=True)  # type: ignore[call-arg]
    b = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, layout=replace(surface, answer_form="conflict_form"))
    assert a.to_json() == b.to_json() and "Reply in this form:" in a.user
    with pytest.warns(DeprecationWarning), pytest.raises(OptionError, match="conflict_policy='surface'"):
        assemble(RECORDS, QUESTION, as_of=AS_OF, conflict_form=True)  # type: ignore[call-arg]


def test_both_old_answer_forms_are_refused() -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(OptionError, match="choose one"):
        assemble(RECORDS, QUESTION, as_of=AS_OF, scaffold=True, conflict_form=True)  # type: ignore[call-arg]


def test_an_unknown_name_is_still_an_option_error() -> None:
    with pytest.raises(OptionError, match="ordr"):
        assemble(RECORDS, QUESTION, as_of=AS_OF, ordr="edges")  # type: ignore[call-arg]


def test_options_build_takes_the_old_names_too() -> None:
    with pytest.warns(DeprecationWarning):
        built = Options.build(as_of=AS_OF, order="ranked", exclude_expired=True)
    assert built.layout.order == "ranked" and built.admission.exclude_expired
