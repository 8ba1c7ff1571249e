"""Metadata that changes the answer: profiles, validity status, conflicts, the flat baseline, the corpus."""

from collections import Counter
from datetime import date

import pytest

from evidencepack import Admission, Dedup, Layout, assemble
from evidencepack.data.demo import corpus, traps
from evidencepack.render import PROFILES

AS_OF = date(2026, 6, 1)


def one(fmt="text", profile="policy", **fields):
    rec = {"id": "a", "text": "Rule text.", "doc": "Handbook", "section": "5.2", "date": "2025-01-01",
           "source_system": "handbook", "authority": "authoritative", "sensitivity": "internal", **fields}
    return assemble([rec], "q", as_of=fields.pop("as_of", AS_OF), boundary_key="k" * 16,
                    layout=Layout(format=fmt, profile=profile))


@pytest.mark.parametrize("fmt", ["compact", "text", "xml", "markdown", "json"])
@pytest.mark.parametrize("profile", list(PROFILES))
def test_every_profile_in_every_format_renders_exactly_its_fields(fmt, profile):
    user = one(fmt, profile, valid_from="2025-01-01").user.split("\n\nQuestion:")[0]  # the answer form aside
    expected = {"doc": "Handbook", "section": "5.2", "date": "2025-01-01", "source_system": "handbook",
                "authority": "authoritative", "status": "current", "sensitivity": "internal"}
    for name, value in expected.items():
        assert (value in user) == (name in PROFILES[profile]), (name, value)


@pytest.mark.parametrize("as_of, status", [
    (date(2024, 12, 31), "not valid until 2025-01-01"),
    (date(2025, 1, 1), "current"),          # first valid day
    (date(2025, 12, 31), "current"),        # last valid day
    (date(2026, 1, 1), "EXPIRED since 2025-12-31"),
])
def test_validity_status_at_boundary_dates(as_of, status):
    record = {"id": "a", "text": "t", "valid_from": "2025-01-01", "valid_until": "2025-12-31"}
    a = assemble([record], "q", as_of=as_of, boundary_key="k" * 16)
    assert f"<<<{a.boundary} BEGIN S1>>> {status} · internal\n" in a.user  # compact, the default: unlabelled
    assert f"validity: {status} ·" in assemble([record], "q", as_of=as_of, boundary_key="k" * 16,
                                               layout=Layout(format="text")).user


def test_no_window_means_no_status_field():
    assert "validity" not in one().user


def test_custom_profile_with_metadata_keys_and_field_costs():
    a = one(profile=["doc", "owner", "metadata.region"], metadata={"owner": "HR Ops", "region": "EU"})
    assert 'owner: "HR Ops"' in a.user and 'metadata.region: "EU"' in a.user
    assert set(a.report.tokens["fields"]) == {"doc", "owner", "metadata.region"}
    assert all(v > 0 for v in a.report.tokens["fields"].values())


def _rec(id, topic=None, authority="authoritative", valid_until=None, embedding=None):
    r = {"id": id, "text": f"Text {id} about something specific number {len(id)}.", "authority": authority}
    if topic:
        r["topic"] = topic
    if valid_until:
        r["valid_until"] = valid_until
    if embedding:
        r["embedding"] = embedding
    return r


def test_conflicts_grouped_by_topic():
    a = assemble([_rec("cur", "pto"), _rec("old", "pto", "informal", "2024-01-01"), _rec("other", "gym"),
                  _rec("gym-slack", "gym", "informal")], "q", as_of=AS_OF,
                 layout=Layout(order="ranked", conflict_policy="surface"))
    assert [(c.topic, c.current, c.others) for c in a.report.conflicts] == [
        ("pto", ("S1",), (("S2", ("informal", "EXPIRED since 2024-01-01")),)),
        ("gym", ("S3",), (("S4", ("informal",)),)),
    ]


def test_conflicts_grouped_by_embeddings_when_no_topic():
    a = assemble([_rec("cur", embedding=[1, 0, 0]), _rec("old", authority="superseded", embedding=[0.95, 0.1, 0]),
                  _rec("far", authority="informal", embedding=[0, 0, 1])], "q", as_of=AS_OF,
                 layout=Layout(order="ranked", conflict_policy="surface"), dedup=Dedup(embedding_cutoff=None))
    [c] = a.report.conflicts
    assert c.topic is None and c.current == ("S1",) and c.others == (("S2", ("superseded",)),)


def test_no_conflict_when_records_agree_in_status():
    a = assemble([_rec("a", "pto"), _rec("b", "pto")], "q", as_of=AS_OF)
    assert a.report.conflicts == () and "Notice" not in a.user
    a = assemble([_rec("a", "pto", "informal"), _rec("b", "pto", "informal")], "q", as_of=AS_OF)
    assert a.report.conflicts == ()  # nothing current and authoritative to weigh them against


def test_notice_states_metadata_facts_only():
    a = assemble([_rec("cur", "pto"), _rec("old", "pto", "informal", "2024-01-01")], "q", as_of=AS_OF,
                 boundary_key="k" * 16, layout=Layout(order="ranked", conflict_policy="surface"))
    notice = a.user.split("\n\n")[1].split(f"<<<{a.boundary} BEGIN")[0]  # compact: no blank line before blocks
    assert notice.startswith("Notice:") and "S2 is informal and EXPIRED since 2024-01-01" in notice
    assert "Text cur" not in notice and "Text old" not in notice


def test_flat_baseline_has_no_structure():
    a = one("flat", valid_until="2024-01-01")
    assert a.user == "Context:\nRule text.\n\nQuestion: q"
    assert a.report.conflicts == ()


def test_conflict_policy():
    surface, resolve = (assemble([{"id": "a", "text": "t"}], "q", as_of=AS_OF, layout=Layout(conflict_policy=policy)
                                 ).system for policy in ("surface", "resolve"))
    assert "name the handles on each side" in surface and "give one answer" in resolve
    with pytest.raises(ValueError, match="conflict_policy"):
        assemble([{"id": "a", "text": "t"}], "q", as_of=AS_OF, layout=Layout(conflict_policy="vote"))


def test_custom_system_template_is_substituted_once_and_safely():
    a = assemble([{"id": "a", "text": "Record says $boundary and ${as_of}."}], "q", as_of=AS_OF, boundary_key="k" * 16,
                 layout=Layout(system_template="Sources use code $boundary; today is $as_of; $unknown stays."))
    assert a.system == f"Sources use code {a.boundary}; today is 2026-06-01; $unknown stays."
    assert "Record says $boundary and ${as_of}." in a.user


# -- the bundled corpus ------------------------------------------------------------------------------

def test_bundled_corpus_is_realistic_and_covers_the_trap_questions():
    records = corpus()
    assert len(records) >= 60 and all(r.topic for r in records)
    assert {r.source_system for r in records} >= {"handbook", "slack", "email", "benefits_portal"}
    assert Counter(r.sensitivity for r in records).keys() >= {"public", "internal", "confidential", "restricted"}
    admitted = assemble(records, "q", as_of=AS_OF, budget=None, admission=Admission(clearance="restricted"))
    assert len(admitted.report.records) == len(records)
    by_topic: dict[str, list] = {}
    for r in records:
        by_topic.setdefault(r.topic, []).append(r)
    conflicting = [t for t, rs in by_topic.items()
                   if any(r.authority == "authoritative" and r.valid_until is None for r in rs)
                   and any(r.authority in ("informal", "superseded") for r in rs)]
    assert len(conflicting) >= 25


def test_trap_set_refers_to_the_corpus():
    ids = {r.id for r in corpus()}
    sets = traps()
    assert len(sets) == 25
    for t in sets:
        assert set(t["records"]) <= ids and t["gold"] in t["records"] and t["trap"] in t["records"]
