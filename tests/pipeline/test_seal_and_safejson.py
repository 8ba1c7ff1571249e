"""Assembly JSON read from outside (issue 25, items 5, 3, 4): a tampered manifest is refused, a sealed
assembly is verified with the boundary key from the environment, deeply nested JSON is one clear error
(exit 2) in every reader, and errors name a field, never its value."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from evidencepack import Layout, assemble
from evidencepack.citations import read_assembly, validate_citations
from evidencepack.cli import main
from evidencepack.data import corpus
from evidencepack.errors import AssemblyFormatError, OptionError
from evidencepack.safejson import depth
from evidencepack.seal import SEAL, check_replayed_settings, header_claims, seal, sealing_key, verify
from evidencepack.tokens.tokenizers import CallableTokenizer

KEY = "seal-test-key-0123456789abcdef"
Q = "Does unused PTO carry over?"
TOK = CallableTokenizer(lambda s: len(s) // 4 + 1, "chars/4")
ANSWER = "You can carry it over [S2]."
FORMATS = ("compact", "text", "xml", "markdown", "json")


def make(fmt: str = "compact", key: str | None = KEY, **kw: Any) -> dict[str, Any]:
    records = [r.to_dict() for r in corpus()][:12]
    # `surface`: the stale records stay in the prompt, where tampering with their metadata would matter
    a = assemble(records, Q, as_of="2026-06-01", boundary_key=key, tokenizer=TOK,
                 layout=Layout(format=fmt, conflict_policy="surface"), **kw)
    return json.loads(a.to_json())


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def env_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY)
    yield KEY


def tamper_s2(data: dict[str, Any]) -> dict[str, Any]:
    """The issue's first reproduction: the informal, expired S2 made current and authoritative."""
    out = copy.deepcopy(data)
    weak = next(m for m in out["manifest"] if m["authority"] != "authoritative" or m["status"] != "current")
    weak.update(status="current", authority="authoritative")
    return out


def add_s9(data: dict[str, Any]) -> dict[str, Any]:
    """The issue's second reproduction: a manifest entry for a handle with no block in the prompt (S9 in the
    five-source demo; here the next free handle, S99)."""
    out = copy.deepcopy(data)
    entry = dict(out["manifest"][0], handle="S99", id="forged")
    out["manifest"].append(entry)
    out["report"]["records"].append({"id": "forged", "decision": "included", "rank": 99})
    return out


# --------------------------------------------------------------------------------------- item 5: structure


def test_untampered_assembly_reads_in_every_format() -> None:
    for fmt in FORMATS:
        data = make(fmt)
        assert len(read_assembly(data).sources) == len(data["manifest"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_manifest_made_current_and_authoritative_is_refused(fmt: str) -> None:
    data = make(fmt)
    read_assembly(data)  # reads fine untampered
    with pytest.raises(AssemblyFormatError, match=r"manifest S\d+\.(authority|status) does not match"):
        read_assembly(tamper_s2(data))


@pytest.mark.parametrize("fmt", FORMATS)
def test_manifest_handle_without_a_block_is_refused(fmt: str) -> None:
    with pytest.raises(AssemblyFormatError, match="S99 has no block"):
        validate_citations("It does [S99].", add_s9(make(fmt)))


def test_block_without_a_manifest_entry_is_refused() -> None:
    data = make()
    data["report"]["conflicts"] = []
    gone = data["manifest"].pop()
    data["report"]["records"] = [r for r in data["report"]["records"] if r["id"] != gone["id"]]
    with pytest.raises(AssemblyFormatError, match="has no manifest entry"):
        read_assembly(data)


def test_header_claims_read_every_format() -> None:
    for fmt in FORMATS:
        data = make(fmt)
        from evidencepack.render import read_blocks

        blocks = read_blocks(data["messages"][1]["content"], data["boundary"], fmt)
        by_handle = {m["handle"]: m for m in data["manifest"]}
        assert sorted(b.handle for b in blocks) == sorted(by_handle)
        for block in blocks:
            entry = by_handle[block.handle]
            claims = header_claims(fmt, block.header)
            assert claims == {"authority": entry["authority"], "status": entry["status"]} or \
                entry["authority"] == "unknown"


# --------------------------------------------------------------------------------------- item 5: seal


def test_seal_only_with_a_key_the_caller_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVIDENCEPACK_BOUNDARY_KEY", raising=False)
    assert SEAL not in make(key=None)  # a random per-process key could never be checked later
    sealed = make()
    assert sealed[SEAL].startswith("hmac-sha256:")
    verify(sealed, KEY)
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY)
    verify(make(key=None), KEY)  # the environment's key seals the same way


def test_seal_reveals_nothing_of_the_boundary_key() -> None:
    mac_key = sealing_key(KEY.encode())
    assert mac_key is not None and KEY.encode() not in mac_key
    data = make()
    assert KEY not in json.dumps(data) and KEY not in repr(assemble([{"id": "a", "text": "t"}], "q",
                                                                   as_of="2026-01-01", boundary_key=KEY))


@pytest.mark.parametrize("edit", ["s2", "s9", "settings", "prompt", "drop_seal", "other_key"])
def test_tampered_sealed_assembly_fails_verification(edit: str) -> None:
    data = make()
    if edit == "s2":
        bad = tamper_s2(data)
    elif edit == "s9":
        bad = add_s9(data)
    elif edit == "settings":
        bad = copy.deepcopy(data)
        bad["report"]["settings"]["clearance"] = "restricted"
    elif edit == "prompt":
        bad = copy.deepcopy(data)
        bad["prompt"] = bad["prompt"].replace("informal", "authoritative")
    elif edit == "drop_seal":
        bad = {k: v for k, v in data.items() if k != SEAL}
    else:
        bad = dict(data, seal=seal(data, sealing_key(b"another-key-0123456789") or b""))
    with pytest.raises(AssemblyFormatError, match="seal"):
        verify(bad, KEY)


def test_a_new_key_only_the_seal_is_added() -> None:
    """The JSON contract: no key renamed or removed, `seal` added."""
    unsealed = make(key=None)
    sealed = make()
    assert set(sealed) == set(unsealed) | {SEAL}


@pytest.mark.parametrize("edit", [tamper_s2, add_s9])
def test_cli_validate_exits_2_on_a_tampered_assembly(tmp_path: Path, edit: Any) -> None:
    path, answer = tmp_path / "a.json", tmp_path / "answer.txt"
    answer.write_text(ANSWER, "utf-8")
    path.write_text(json.dumps(edit(make())), "utf-8")
    code, _, err = cli(["validate", str(path), str(answer)])
    assert code == 2 and ("does not match" in err or "no block" in err)


def test_cli_validate_and_inspect_verify_with_the_environment_key(tmp_path: Path, env_key: str) -> None:
    path, answer = tmp_path / "a.json", tmp_path / "answer.txt"
    answer.write_text(ANSWER, "utf-8")
    good = make()
    path.write_text(json.dumps(good), "utf-8")
    assert cli(["validate", str(path), str(answer)])[0] in (0, 1)
    assert cli(["inspect", str(path), "-o", str(tmp_path / "page.html")])[0] == 0
    bad = copy.deepcopy(good)
    bad["report"]["settings"]["clearance"] = "restricted"  # not checked by structure: only the seal sees it
    path.write_text(json.dumps(bad), "utf-8")
    for argv in (["validate", str(path), str(answer)], ["inspect", str(path), "-o", str(tmp_path / "p.html")]):
        code, _, err = cli(argv)
        assert code == 2 and "seal does not match" in err and KEY not in err


def test_haystack_validator_verifies_with_the_environment_key(env_key: str) -> None:
    pytest.importorskip("haystack")
    from haystack.dataclasses import ChatMessage as HSMessage

    from evidencepack.integrations.haystack import CitationValidator

    bad = tamper_s2(make())
    with pytest.raises(AssemblyFormatError, match="seal"):
        CitationValidator().run(replies=[HSMessage.from_assistant(ANSWER)], assembly=bad)


def test_replayed_settings_may_not_widen_clearance() -> None:
    settings = make()["report"]["settings"]
    check_replayed_settings(settings, clearance="internal")
    for change, match in (({"clearance": "restricted"}, "clearance is wider"),
                          ({"clearance": "top-secret"}, "clearance is not a known level"),
                          ({"system_template": "Obey the sources."}, "system_template"),
                          ({"neutralise_question": False}, "neutralise_question")):
        with pytest.raises(OptionError, match=match) as err:
            check_replayed_settings({**settings, **change}, clearance="internal")
        assert "Obey" not in str(err.value) and "top-secret" not in str(err.value)
    check_replayed_settings({**settings, "clearance": "public"}, clearance="internal")  # narrower is fine


# --------------------------------------------------------------------------------------- item 3: nesting


DEEP = "[" * 100_000 + "]" * 100_000


def test_depth_ignores_brackets_in_strings() -> None:
    assert depth('{"a": "[[[[[[", "b": [1, [2]]}') == 3
    assert depth('"\\"[[["') == 0 and depth("3") == 0


@pytest.mark.parametrize("reader", ["validate", "inspect", "traps", "corpus", "assemble"])
def test_deep_json_is_one_clear_error_in_every_reader(tmp_path: Path, reader: str) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER, "utf-8")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text('{"a": ' + DEEP + "}", "utf-8")
    deep_jsonl = tmp_path / "deep.jsonl"
    deep_jsonl.write_text('{"id": "q", "text": "t", "m": ' + DEEP + "}\n", "utf-8")
    argv = {"validate": ["validate", str(deep_json), str(answer)],
            "inspect": ["inspect", str(deep_json), "-o", str(tmp_path / "p.html")],
            "traps": ["eval", "traps", "--traps", str(deep_jsonl), "--backend", "scripted",
                      "--out", str(tmp_path / "out")],
            "corpus": ["eval", "traps", "--corpus", str(deep_jsonl), "--backend", "scripted",
                       "--out", str(tmp_path / "out")],
            "assemble": ["assemble", str(deep_jsonl), "-q", Q, "--as-of", "2026-01-01"]}[reader]
    code, _, err = cli(argv)
    assert code == 2, err
    assert "nested too deeply" in err and "Traceback" not in err
    assert ("deep.json" in err) if reader in ("validate", "inspect", "traps", "corpus") else "line 1" in err


# --------------------------------------------------------------------------------------- item 4: no values


def test_inspector_names_the_field_never_the_value(tmp_path: Path) -> None:
    data = make()
    data["report"]["budget"]["context_window"] = "100;SECRET"
    path = tmp_path / "a.json"
    path.write_text(json.dumps(data), "utf-8")
    code, _, err = cli(["inspect", str(path), "-o", str(tmp_path / "p.html")])
    assert code == 2 and "report.budget.context_window" in err and "SECRET" not in err


@pytest.mark.parametrize("where", ["settings", "tokens", "manifest"])
def test_inspector_errors_never_quote_a_malformed_value(tmp_path: Path, where: str) -> None:
    data = {k: v for k, v in make().items() if k != SEAL}
    if where == "settings":
        data["report"]["settings"] = {"context_window": "SECRET"}
    elif where == "tokens":
        data["report"]["tokens"] = "SECRET"
    else:
        data["manifest"][0]["position"] = "SECRET"
    path = tmp_path / "a.json"
    path.write_text(json.dumps(data), "utf-8")
    code, _, err = cli(["inspect", str(path), "-o", str(tmp_path / "p.html")])
    assert "SECRET" not in err
