"""`passes.admit`: the validity window, clearance, and the expired/superseded policies, with the seed's vectors."""

from datetime import date

import pytest

from evidencepack import Record
from evidencepack.passes.admit import admit, validity_status


def R(id, text="x", **kw):
    return Record(id=id, text=text, **kw)


@pytest.mark.parametrize("as_of, want", [
    (date(2024, 12, 31), "not_yet_valid"),
    (date(2025, 1, 1), "current"),     # first valid day
    (date(2025, 6, 30), "current"),    # last valid day
    (date(2025, 7, 1), "expired"),
])
def test_validity_window_is_inclusive(as_of, want):
    r = R("a", valid_from=date(2025, 1, 1), valid_until=date(2025, 6, 30))
    assert validity_status(r, as_of) == want


def test_clearance_drops_above_and_keeps_at_or_below():
    recs = [R("pub", sensitivity="public"), R("int"), R("conf", sensitivity="confidential"),
            R("res", sensitivity="restricted")]
    out = admit(recs, as_of=date(2026, 1, 1))
    assert [c.id for c in out.kept] == ["pub", "int"]
    assert [(d.id, d.reason) for d in out.dropped] == [("conf", "above_clearance"), ("res", "above_clearance")]
    assert [c.id for c in admit(recs, as_of=date(2026, 1, 1), clearance="restricted").kept] == [
        "pub", "int", "conf", "res"]


def test_expired_is_labelled_by_default_and_excluded_by_policy():
    recs = [R("old", valid_until=date(2024, 6, 30)), R("new")]
    out = admit(recs, as_of=date(2026, 1, 1))
    assert [(c.id, c.status) for c in out.kept] == [("old", "expired"), ("new", "current")]
    out = admit(recs, as_of=date(2026, 1, 1), exclude_expired=True)
    assert [d.reason for d in out.dropped] == ["expired_excluded"]


def test_superseded_can_be_excluded():
    out = admit([R("a", authority="superseded"), R("b")], as_of=date(2026, 1, 1), exclude_superseded=True)
    assert [(d.id, d.reason) for d in out.dropped] == [("a", "superseded_excluded")]


def test_datetime_bounds_compare_by_instant_and_naive_as_of_is_utc():
    from datetime import datetime

    from evidencepack import assemble

    rec = {"id": "a", "text": "t", "valid_until": "2025-01-01T10:00:00Z"}
    assert assemble([rec], "q", as_of=datetime(2025, 1, 1, 9)).manifest[0].status == "current"
    assert assemble([rec], "q", as_of=datetime(2025, 1, 1, 11)).manifest[0].status == "expired"
    assert assemble([rec], "q", as_of="2025-01-01").manifest[0].status == "current"  # a day covers the bound
