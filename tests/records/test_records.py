from datetime import date, datetime, timezone

import pytest

from evidencepack import Record, RecordError, parse_records
from evidencepack.records.jsonl import parse_jsonl_bytes


def test_dict_round_trip_keeps_unknown_fields_in_metadata():
    r = Record.from_dict({"id": "a", "text": "t", "valid_from": "2025-01-01", "owner": "hr", "metadata": {"x": 1}})
    assert r.valid_from == date(2025, 1, 1)
    assert r.metadata == {"x": 1, "owner": "hr"}
    assert Record.from_dict(r.to_dict()) == r


def test_datetime_is_timezone_aware():
    r = Record.from_dict({"id": "a", "text": "t", "valid_until": "2025-01-01T12:00:00"})
    assert r.valid_until == datetime(2025, 1, 1, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize("data, field", [
    ({"id": "a"}, "text"),
    ({"id": "a", "text": "   "}, "text"),
    ({"text": "x"}, "id"),
    ({"id": "a", "text": "x", "date": "yesterday"}, "date"),
    ({"id": "a", "text": "x", "authority": "official"}, "authority"),
    ({"id": "a", "text": "x", "sensitivity": "secret"}, "sensitivity"),
    ({"id": "a", "text": "x", "valid_from": "2025-02-01", "valid_until": "2025-01-01"}, "valid_until"),
    ({"id": "a", "text": "x", "score": "high"}, "score"),
    ({"id": "a", "text": "x", "rank": 0}, "rank"),
    ({"id": 7, "text": "x"}, "id"),
])
def test_bad_records_name_the_field(data, field):
    with pytest.raises(RecordError) as err:
        parse_records([data])
    assert err.value.field == field
    assert repr(field) in str(err.value)


def test_first_and_last_valid_day_equal_is_fine():
    Record.from_dict({"id": "a", "text": "x", "valid_from": "2025-01-01", "valid_until": "2025-01-01"})


def test_duplicate_id_is_an_error():
    with pytest.raises(RecordError, match="duplicate id"):
        parse_records([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])


def test_rank_orders_and_score_orders():
    out = parse_records([{"id": "a", "text": "x", "rank": 2}, {"id": "b", "text": "y", "rank": 1}])
    assert [r.id for r in out] == ["b", "a"]
    out = parse_records([{"id": "a", "text": "x", "score": 0.1}, {"id": "b", "text": "y", "score": 0.9}])
    assert [r.id for r in out] == ["b", "a"]
    out = parse_records([{"id": "a", "text": "x"}, {"id": "b", "text": "y"}])
    assert [r.id for r in out] == ["a", "b"]


def test_rank_and_score_that_disagree_is_an_error():
    with pytest.raises(RecordError, match="order the records differently"):
        parse_records([{"id": "a", "text": "x", "rank": 1, "score": 0.1},
                       {"id": "b", "text": "y", "rank": 2, "score": 0.9}])
    parse_records([{"id": "a", "text": "x", "rank": 1, "score": 0.9},
                   {"id": "b", "text": "y", "rank": 2, "score": 0.1}])


def test_partial_rank_is_an_error_not_a_guess():
    with pytest.raises(RecordError, match="missing here") as err:
        parse_records([{"id": "a", "text": "x", "rank": 1}, {"id": "b", "text": "y"}])
    assert err.value.record_id == "b"


def test_jsonl_errors_name_the_line():
    with pytest.raises(RecordError, match="line 2"):
        parse_jsonl_bytes(b'{"id": "a", "text": "x"}\n{"id": "b"}\n')
    with pytest.raises(RecordError, match="line 3.*not valid JSON"):
        parse_jsonl_bytes(b'{"id": "a", "text": "x"}\n\n{oops\n')
    with pytest.raises(RecordError, match="line 1.*UTF-8"):
        parse_jsonl_bytes(b'{"id": "a", "text": "\xff"}\n')
    with pytest.raises(RecordError, match="line 2.*duplicate id"):
        parse_jsonl_bytes(b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(RecordError, match="line 3, record 'c', field 'rank'"):
        parse_jsonl_bytes(b'{"id": "a", "text": "x", "rank": 1}\n{"id": "b", "text": "y", "rank": 2}\n'
                          b'{"id": "c", "text": "z"}\n')
    with pytest.raises(RecordError, match="line 1.*nested too deeply"):
        parse_jsonl_bytes(b'{"id": "a", "text": "x", "metadata": ' + b"[" * 100000 + b"]" * 100000 + b"}\n")
