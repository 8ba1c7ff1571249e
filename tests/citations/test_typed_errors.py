"""Typed errors, one reader (issue 14.7): anything that is not an assembly, crafted assembly JSON and bad
arguments are each one `CitationInputError`/`AssemblyFormatError`, never a bare exception."""

import json
from datetime import date

import pytest

from evidencepack import (
    AssemblyFormatError,
    CitationInputError,
    EvidencepackError,
    Layout,
    assemble,
    regenerate,
    validate_citations,
)
from evidencepack.citations import (
    StreamValidator,
    parse_citations,
    read_assembly,
    resolve,
    strip_invalid,
)

A = assemble([{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
              {"id": "old", "text": "Five days carry over.", "authority": "superseded"},
              {"id": "secret", "text": "Band L4 pays 70,000.", "sensitivity": "restricted"}],
             "Does PTO carry over?", as_of=date(2026, 1, 1), layout=Layout(order="ranked"), boundary_key="k" * 16)


@pytest.mark.parametrize("bad", [[], None, 5, "assembly.json", object()])
def test_not_an_assembly(bad):
    with pytest.raises(AssemblyFormatError):
        validate_citations("It does not carry over [S1].", bad)


def _json(**changes):
    data = json.loads(A.to_json())
    for path, value in changes.items():
        target = data
        *head, last = path.split("__")
        for part in head:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize("changes", [
    {"report__records__0__id": 7},
    {"manifest__0__id": 7},
    {"manifest__0__handle": 1},
    {"manifest__0__handle": "S01"},
    {"manifest__0__handle": "X1"},
    {"manifest__0__url": ["https://x"]},
    {"manifest": {"S1": {}}},
    {"manifest__0": "S1"},
    {"report": []},
    {"report__records": None},
    {"report__records__0__decision": None},
    {"handle_prefix": 5},
    {"handle_prefix": "S1"},
    {"schema": "something/else"},
    {"manifest__1__id": "hb"},  # two handles for one record
    {"manifest__0__id": "secret"},  # a manifest entry for a dropped record
])
def test_crafted_assembly_json_is_one_typed_error(changes):
    with pytest.raises(AssemblyFormatError) as err:
        read_assembly(_json(**changes))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("call", [
    lambda: validate_citations(b"bytes", A),
    lambda: validate_citations(None, A),
    lambda: validate_citations("x", A, severities={"uncited": "loud"}),
    lambda: validate_citations("x", A, severities={"nonsense": "warn"}),
    lambda: validate_citations("x", A, severities=["uncited"]),
    lambda: resolve("x", A, style="html"),
    lambda: regenerate("x [S9].", A, "not callable"),
    lambda: regenerate("x [S9].", A, lambda _: 5),
    lambda: regenerate("x [S9].", A, lambda _: "y", attempts=-1),
    lambda: StreamValidator(A).feed(5),
    lambda: StreamValidator(A, severities={"stale_only": "sometimes"}),
    lambda: strip_invalid("x", A, mark=3),
    lambda: parse_citations(5),
])
def test_bad_arguments_are_typed_errors(call):
    with pytest.raises(CitationInputError) as err:
        call()
    assert isinstance(err.value, EvidencepackError) and isinstance(err.value, ValueError)
