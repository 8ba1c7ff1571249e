"""One severity mapping and one repair wording, shared by the library and the evaluation guard."""

from datetime import date

from evidencepack import (
    Layout,
    assemble,
    regenerate,
    validate_citations,
)
from evidencepack.citations import (
    SEVERITIES,
    StreamValidator,
    repair_prompt,
)
from evidencepack.eval.experiments import repair_message

A = assemble([{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
              {"id": "old", "text": "Five days carry over.", "authority": "superseded"},
              {"id": "secret", "text": "Band L4 pays 70,000.", "sensitivity": "restricted"}],
             "Does PTO carry over?", as_of=date(2026, 1, 1), layout=Layout(order="ranked"), boundary_key="k" * 16)


def test_severities_are_one_mapping():
    assert set(SEVERITIES) == {"unknown_handle", "record_id", "excluded_source", "uncited", "stale_only",
                               "stale_value", "unsupported_value", "suspicious_copy", "foreign_url",
                               "transplanted_value", "verdict_against_rule"}
    answer = "It does not carry over [hb]."
    assert not validate_citations(answer, A).valid
    relaxed = validate_citations(answer, A, severities={"record_id": "warn"})
    assert relaxed.valid and [f.severity for f in relaxed.findings] == ["warn"]
    assert validate_citations(answer, A, severities={"record_id": "off", "uncited": "off"}).findings == ()
    sv = StreamValidator(A, severities={"unknown_handle": "off"})
    assert sv.feed("Forged [S9].") == [] and sv.close().valid


def test_one_repair_wording_for_the_library_and_the_evaluation_guard():
    findings = [{"kind": "unknown_handle", "message": "[S9] was not in the prompt"},
                {"kind": "uncited", "message": "sentence 2 states something and cites nothing"}]
    assert repair_message(findings) == repair_prompt(["[S9] was not in the prompt"])
    prompts = []
    regenerate("It carries over [S9].", A, lambda p: prompts.append(p) or "It does not carry over [S1].")
    assert prompts == [repair_prompt(["[S9] was not in the prompt"])]
