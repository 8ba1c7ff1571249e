"""Under `conflict_policy="withhold"` the model never sees the weak sources, so the reader learns of them from
the assembler: every integration delivers the note with the answer (providers' `ask`, Haystack's validator,
and `evidencepack validate --notes`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack import Layout, assemble
from evidencepack.cli import main
from fake_llm import FakeLLM

RECORDS = [
    {"id": "chat", "text": "Sure, use your own laptop for the VPN.", "authority": "informal", "topic": "vpn",
     "doc": "Teams chat"},
    {"id": "policy", "text": "Only company laptops may connect to the VPN.", "authority": "authoritative",
     "topic": "vpn", "doc": "Security Policy", "section": "3.1"},
]
ANSWER = "No: only company laptops may connect [S1]."


def _assembly():
    return assemble(RECORDS, "Can I use my own laptop on the VPN?", as_of="2026-05-01",
                    boundary_key=b"withhold-delivery-key-01", layout=Layout(conflict_policy="withhold"))


def _check(delivered: str) -> None:
    assert delivered.startswith(ANSWER)
    assert "Note: Conflicting sources: 1 source on the same question was left out" in delivered
    assert "Teams chat (informal)" in delivered and "[S1] is current and authoritative and holds" in delivered


def test_providers_ask_delivers_the_note() -> None:
    providers = pytest.importorskip("evidencepack.integrations.providers")
    openai = pytest.importorskip("openai")
    with FakeLLM([ANSWER]) as server:
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)
        result = providers.ask(client, _assembly(), model="m")
    _check(result.with_notes())
    assert result.to_dict()["conflict_notes"][0]["weak_only"] is False


def test_haystack_validator_delivers_the_note() -> None:
    haystack = pytest.importorskip("evidencepack.integrations.haystack")
    from haystack.dataclasses import ChatMessage

    out = haystack.CitationValidator().run(replies=[ChatMessage.from_assistant(ANSWER)],
                                           assembly=_assembly().to_dict())
    _check(out["delivered"])
    assert out["answer"] == ANSWER and len(out["conflict_notes"]) == 1


def test_validate_notes_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "assembly.json"
    path.write_text(_assembly().to_json(), encoding="utf-8")
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER, encoding="utf-8")
    main(["validate", str(path), str(answer), "--json", "--notes"])
    out = json.loads(capsys.readouterr().out)
    (note,) = out["conflict_notes"]
    assert "Teams chat (informal)" in note["text"]
