"""Target models: tokenizer and chat framing from a GGUF file, a tokenizer.json, an OpenAI name or a callable.

Nothing is downloaded: the GGUF files are written here with the `gguf` package's own writer, from a tiny
byte-level vocabulary whose token counts can be worked out by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from evidencepack import Budget, BudgetError, TokenizerError, assemble
from evidencepack.tokens.models import resolve_model
from evidencepack.tokens.target import TargetModel
from evidencepack.tokens.tokenizers import get_tokenizer
from reached import count_reached, reached

CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
          "{% endif %}")
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MERGES = ["Ġ t", "h e", "Ġt he", "1 2", "12 3"]
WORDS = ["xyz"]  # in the vocabulary, but no merge builds it: only llama-bpe's ignore_merges finds it whole


def byte_alphabet() -> list[str]:
    """GPT-2's byte-to-unicode table (bytes that print stay themselves, the rest shift above 255)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    chars, n = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + n)
            n += 1
    return [chars[b] for b in range(256)]


def vocabulary() -> tuple[list[str], list[int]]:
    tokens = byte_alphabet() + [m.replace(" ", "") for m in MERGES] + WORDS + SPECIALS
    types = [1] * (len(tokens) - len(SPECIALS)) + [3] * len(SPECIALS)
    return tokens, types


def write_gguf(path: Path, *, pre: str = "qwen2", template: str | None = CHATML, add_bos: bool | None = False,
               kind: str = "gpt2", context_length: int | None = None) -> Path:
    gguf = pytest.importorskip("gguf")
    tokens, types = vocabulary()
    w = gguf.GGUFWriter(str(path), arch="llama")
    w.add_tokenizer_model(kind)
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(MERGES)
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    if add_bos is not None:
        w.add_add_bos_token(add_bos)
    if template is not None:
        w.add_chat_template(template)
    if context_length is not None:
        w.add_context_length(context_length)  # llama.context_length, as llama.cpp's converter writes it
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    return path


@pytest.fixture
def qwen_like(tmp_path: Path) -> Path:
    pytest.importorskip("tokenizers")
    pytest.importorskip("jinja2")
    return write_gguf(tmp_path / "tiny-qwen.gguf")


def chatml_by_hand(messages: list[dict[str, str]]) -> int:
    """ChatML over this vocabulary, for text no merge applies to: one token per character, one per marker."""
    per_message = sum(1 + len(m["role"]) + 1 + len(m["content"]) + 1 + 1 for m in messages)
    return per_message + 1 + len("assistant") + 1


MSGS = [{"role": "system", "content": "abc"}, {"role": "user", "content": "de"}]


# ---------------------------------------------------------------- GGUF


def test_gguf_counts_the_rendered_template(qwen_like):
    model = resolve_model(qwen_like)
    assert isinstance(model, TargetModel) and model.exact and model.source == "gguf"
    assert model.name == "tiny-qwen.gguf"
    assert model.render(MSGS) == "<|im_start|>system\nabc<|im_end|>\n<|im_start|>user\nde<|im_end|>\n" \
                                 "<|im_start|>assistant\n"
    assert model.request_tokens(MSGS) == chatml_by_hand(MSGS) == 34
    assert model.framing_tokens(MSGS) == 34 - 5


def test_gguf_special_tokens_are_recognised_and_merges_apply(qwen_like):
    tok = resolve_model(qwen_like).tokenizer
    assert tok.count("<|im_end|>") == 1  # a control token, as the server reads it
    assert tok.count(" the") == 1  # Ġ t -> Ġt, h e -> he, Ġt he -> Ġthe
    assert tok.count("the") == 2  # t + he
    assert tok.count("é") == 2  # two UTF-8 bytes, two byte tokens


@pytest.mark.parametrize("pre, digits, xyz", [
    ("qwen2", 5, 3),      # \p{N}: one digit per piece; merges as written
    ("llama-bpe", 3, 1),  # \p{N}{1,3}: "123" + "4" + "5"; a word found whole skips the merges
    ("gpt-2", 3, 3),      # " ?\p{N}+": one piece, merged to "123" + "4" + "5"
    ("default", 3, 3),
])
def test_gguf_pre_tokenizer_follows_the_metadata(tmp_path, pre, digits, xyz):
    pytest.importorskip("tokenizers")
    tok = resolve_model(write_gguf(tmp_path / f"{pre}.gguf", pre=pre, template=None)).tokenizer
    assert tok.count("12345") == digits
    assert tok.count("xyz") == xyz


def test_gguf_bos_as_the_metadata_says(tmp_path):
    pytest.importorskip("tokenizers")
    pytest.importorskip("jinja2")
    bos = vocabulary()[0].index("<|endoftext|>")
    # llama-bpe adds BOS by default (no add_bos key): one BOS in front of the rendered template
    llama = resolve_model(write_gguf(tmp_path / "a.gguf", pre="llama-bpe", add_bos=None))
    assert llama.framing.token_ids(MSGS, llama.tokenizer)[0] == bos
    assert llama.request_tokens(MSGS) == chatml_by_hand(MSGS) + 1
    # a template that emits BOS itself does not get a second one
    with_bos = resolve_model(write_gguf(tmp_path / "b.gguf", pre="llama-bpe", add_bos=None,
                                        template="{{ bos_token }}" + CHATML))
    ids = with_bos.framing.token_ids(MSGS, with_bos.tokenizer)
    assert ids[0] == bos and ids[1] != bos and len(ids) == chatml_by_hand(MSGS) + 1
    # the metadata switches it off
    off = resolve_model(write_gguf(tmp_path / "c.gguf", pre="llama-bpe", add_bos=False))
    assert off.request_tokens(MSGS) == chatml_by_hand(MSGS)


def test_gguf_without_template_is_not_exact(tmp_path):
    pytest.importorskip("tokenizers")
    model = resolve_model(write_gguf(tmp_path / "t.gguf", template=None))
    assert not model.exact and model.request_tokens(MSGS) == 5 and model.framing_tokens(MSGS) == 0
    given_template = resolve_model(tmp_path / "t.gguf", chat_template=CHATML)
    assert given_template.exact and given_template.request_tokens(MSGS) == 34


def test_gguf_unsupported_tokenizers_are_clear_errors(tmp_path):
    pytest.importorskip("tokenizers")
    with pytest.raises(TokenizerError, match="pre-tokenizer 'mystery'.*supported: qwen2"):
        resolve_model(write_gguf(tmp_path / "p.gguf", pre="mystery"))
    with pytest.raises(TokenizerError, match="tokenizer type 'llama' is not supported"):
        resolve_model(write_gguf(tmp_path / "s.gguf", kind="llama"))
    whole = write_gguf(tmp_path / "whole.gguf").read_bytes()
    for cut in (len(whole) // 2, 30, 5):  # truncated inside the vocabulary, inside a key, inside the header
        truncated = tmp_path / f"cut{cut}.gguf"
        truncated.write_bytes(whole[:cut])
        with pytest.raises(TokenizerError, match="cannot read GGUF"):
            resolve_model(truncated)
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF not really")
    with pytest.raises(TokenizerError, match="cannot read GGUF"):
        resolve_model(bad)


@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60))
def test_gguf_tokenizer_matches_hugging_face_qwen2_pre_tokenizer(text):
    """llama.cpp rewrites Qwen2's `(?i:'s|…)` as `'[sS]|…`; on any text both must split alike."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import AddedToken, Regex, models, pre_tokenizers

    original = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
    tokens, _ = vocabulary()
    ref = tokenizers.Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)},
                                          [tuple(m.split(" ")) for m in MERGES]))
    ref.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(original), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    ref.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in SPECIALS])
    assert _gguf_qwen().encode(text) == ref.encode(text, add_special_tokens=False).ids


_CACHE: dict[str, object] = {}


def _gguf_qwen():
    if "tok" not in _CACHE:
        import tempfile

        folder = Path(tempfile.mkdtemp())
        _CACHE["tok"] = resolve_model(write_gguf(folder / "prop.gguf", template=None)).tokenizer
    return _CACHE["tok"]


# ---------------------------------------------------------------- templates


def test_template_runs_in_an_immutable_sandbox(tmp_path):
    pytest.importorskip("jinja2")
    words = resolve_model(lambda s: len(s.split()), chat_template="{{ messages.append(1) }}")
    with pytest.raises(TokenizerError, match="chat template failed"):
        words.request_tokens(MSGS)
    raising = resolve_model(lambda s: 1, chat_template="{{ raise_exception('no system role') }}")
    with pytest.raises(TokenizerError, match="no system role"):
        raising.request_tokens(MSGS)
    with pytest.raises(TokenizerError, match="does not parse"):
        resolve_model(lambda s: 1, chat_template="{% for %}")


def test_template_never_reads_the_clock():
    pytest.importorskip("jinja2")
    template = "{% if date_string is not defined %}{{ strftime_now('%d %b %Y') }}{% endif %}{{ date_string }}"
    clock = resolve_model(len, chat_template=template)
    with pytest.raises(TokenizerError, match="reads the clock"):
        clock.request_tokens(MSGS)
    dated = resolve_model(len, chat_template=template, template_vars={"date_string": "26 Jul 2024"})
    assert dated.request_tokens(MSGS) == len("26 Jul 2024")


def test_callable_without_template_is_a_guess():
    words = resolve_model(lambda s: len(s.split()))
    assert not words.exact and words.source == "tokenizer"
    assert words.request_tokens([{"role": "user", "content": "a b c"}]) == 3
    assert resolve_model(lambda s: 0).name != words.name  # never two callables under one cache key
    with pytest.raises(TokenizerError, match="role"):
        words.request_tokens([{"content": "x"}])


# ---------------------------------------------------------------- Hugging Face


def write_hf(folder: Path, config: dict | None) -> Path:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import AddedToken, models, pre_tokenizers

    tokens, _ = vocabulary()
    hf = tokenizers.Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, [tuple(m.split(" ")) for m in MERGES]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in SPECIALS])
    folder.mkdir(exist_ok=True)
    hf.save(str(folder / "tokenizer.json"))
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), "utf-8")
    return folder


def test_hf_directory_with_template(tmp_path):
    pytest.importorskip("jinja2")
    folder = write_hf(tmp_path / "tiny-hf", {"chat_template": "{{ bos_token }}" + CHATML,
                                             "bos_token": {"content": "<|endoftext|>"}})
    for spec in (folder, folder / "tokenizer.json"):
        model = resolve_model(spec)
        assert model.exact and model.source == "huggingface"
        assert model.request_tokens(MSGS) == chatml_by_hand(MSGS) + 1  # the template's BOS, nothing added
    (folder / "chat_template.jinja").write_text(CHATML, "utf-8")  # newer layout wins
    assert resolve_model(folder).request_tokens(MSGS) == chatml_by_hand(MSGS)


def test_hf_tokenizer_without_template_is_not_exact(tmp_path):
    model = resolve_model(write_hf(tmp_path / "bare", None) / "tokenizer.json")
    assert not model.exact and model.request_tokens(MSGS) == 5


# ---------------------------------------------------------------- OpenAI names and errors


@pytest.mark.parametrize("name, encoding", [
    ("gpt-4o", "o200k_base"), ("gpt-4o-2024-08-06", "o200k_base"), ("gpt-4.1-mini", "o200k_base"),
    ("o3-mini", "o200k_base"), ("chatgpt-4o-latest", "o200k_base"), ("gpt-4", "cl100k_base"),
    ("gpt-3.5-turbo-0125", "cl100k_base"),
])
def test_openai_names_resolve_through_tiktoken(name, encoding):
    model = resolve_model(name)
    assert (model.source, model.tokenizer.name, model.exact) == ("openai", encoding, True)
    assert get_tokenizer(name).name == encoding


def test_openai_framing_is_the_documented_rule():
    model = resolve_model("gpt-4o")
    tok = model.tokenizer
    system, user = "You answer from sources.", "Does unused PTO carry over?"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    expected = (3 + tok.count("system") + tok.count(system)) + (3 + tok.count("user") + tok.count(user)) + 3
    assert model.request_tokens(messages) == expected
    assert model.framing_tokens(messages) == 11  # roles are one token each in o200k_base
    named = [{"role": "user", "content": user, "name": "ana"}]
    assert model.request_tokens(named) == 3 + tok.count("user") + tok.count(user) + tok.count("ana") + 1 + 3


def test_unknown_or_unbundled_models_are_errors_never_fallbacks():
    with pytest.raises(TokenizerError, match=r"unknown model 'llama-9000'.*gguf.*tokenizer\.json"):
        resolve_model("llama-9000")
    with pytest.raises(TokenizerError, match="p50k_base.*does not bundle"):
        resolve_model("text-davinci-003")
    with pytest.raises(TokenizerError, match="encoding, not a model"):
        resolve_model("o200k_base")
    with pytest.raises(TokenizerError, match="not found"):
        resolve_model("models/missing.gguf")
    with pytest.raises(TokenizerError, match="not a model"):
        resolve_model(42)  # type: ignore[arg-type]


def test_gguf_files_are_read_without_the_gguf_package(tmp_path, monkeypatch):
    """The header is read by our own reader (issue 26): the `gguf` package only writes the test files."""
    pytest.importorskip("tokenizers")
    pytest.importorskip("jinja2")
    path = write_gguf(tmp_path / "plain.gguf")
    monkeypatch.setitem(sys.modules, "gguf", None)
    model = resolve_model(path)
    assert model.exact and model.tokenizer.count("hello world") > 0


@pytest.mark.parametrize("module, extra", [("tokenizers", "hf"), ("jinja2.sandbox", "templates")])
def test_missing_extras_name_the_extra(tmp_path, monkeypatch, module, extra):
    pytest.importorskip("gguf")
    pytest.importorskip("tokenizers")
    pytest.importorskip("jinja2")
    path = write_gguf(tmp_path / f"extra-{extra}.gguf", template="{# " + extra + " #}" + CHATML)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(TokenizerError, match=rf"evidencepack\[{extra}\]"):
        resolve_model(path)


# ---------------------------------------------------------------- assembly


RECORDS = [{"id": f"r{i}", "text": f"Record {i}: the rule number {i} says {'word ' * (5 * i)}.", "topic": "t"}
           for i in range(1, 9)]


def test_assembly_counts_the_request_the_model_receives(qwen_like):
    model = resolve_model(qwen_like)
    a = assemble(RECORDS, "What does rule 3 say?", as_of="2026-06-01", model=qwen_like)
    b = a.report.budget
    assert b["prompt_tokens"] == model.request_tokens(a.messages)
    assert b["framing"] == chatml_by_hand([{"role": "system", "content": ""}, {"role": "user", "content": ""}])
    assert b["exact"] is True and a.report.settings["model"] == str(qwen_like) and "tiny-qwen.gguf" in b["count_note"]
    assert a.report.settings["tokenizer"] == model.tokenizer.name


def test_assembly_without_model_says_the_count_is_a_guess():
    a = assemble(RECORDS, "What does rule 3 say?", as_of="2026-06-01")
    assert a.report.budget["exact"] is False and a.report.budget["framing"] == 0
    assert a.report.settings["model"] is None and "default tokenizer" in a.report.budget["count_note"]
    t = assemble(RECORDS, "What does rule 3 say?", as_of="2026-06-01", tokenizer="cl100k_base")
    assert "cl100k_base" in t.report.budget["count_note"] and t.report.budget["exact"] is False
    with pytest.raises(ValueError, match="not both"):
        assemble(RECORDS, "q", as_of="2026-06-01", tokenizer="cl100k_base", model="gpt-4o")


def test_framing_is_reserved_in_the_budget_error():
    with pytest.raises(BudgetError, match="11 chat framing"):
        assemble(RECORDS, "q", as_of="2026-06-01", model="gpt-4o",
                 budget=Budget(context_window=200, output_reserve=100, safety_margin=0))


@given(window=st.integers(200, 3000), model=st.sampled_from(["gpt-4o", "gguf"]))
@example(window=3000, model="gpt-4o")
@example(window=3000, model="gguf")
def test_prompt_plus_reserves_fits_the_window_by_the_models_count(window, model):
    """The prompt's count is the model's own count of the request, and with the output reserve it fits the
    window. Assumed (`assume`): the window holds the frame; a smaller one raises BudgetError and the draw is
    rejected. `test_prompt_plus_reserves_reaches_its_assertions` counts the examples that got past it."""
    target = resolve_model("gpt-4o") if model == "gpt-4o" else resolve_model(_tiny_gguf_path())
    budget = Budget(context_window=window, output_reserve=64, safety_margin=0)
    try:
        a = assemble(RECORDS, "What does rule 3 say?", as_of="2026-06-01", model=target, budget=budget)
    except BudgetError:
        a = None
    assume(a is not None)
    real = target.request_tokens(a.messages)
    assert a.report.budget["prompt_tokens"] == real
    if a.manifest:  # with no record at all the "no sources" placeholder is not reserved (a pipeline matter)
        assert real + budget.output_reserve <= window
        reached("fits_by_model_with_records")
    reached("fits_by_model")


def test_prompt_plus_reserves_reaches_its_assertions():
    """The property above is not vacuous: run again, at least half the profile's examples fit their window
    and reach the exact-count assertion, and at least a quarter have records in the prompt (the fit one)."""
    prop = test_prompt_plus_reserves_fits_the_window_by_the_models_count
    reached_counts = count_reached(prop, "fits_by_model", "fits_by_model_with_records")
    assert reached_counts["fits_by_model"] >= settings().max_examples // 2
    assert reached_counts["fits_by_model_with_records"] >= settings().max_examples // 4


def _tiny_gguf_path() -> Path:
    if "path" not in _CACHE:
        import tempfile

        pytest.importorskip("tokenizers")
        pytest.importorskip("jinja2")
        _CACHE["path"] = write_gguf(Path(tempfile.mkdtemp()) / "hyp.gguf")
    return _CACHE["path"]  # type: ignore[return-value]


# ---------------------------------------------------------------- CLI and the server check


def test_cli_says_once_when_the_count_is_a_guess(tmp_path, capsys):
    from evidencepack.cli import main

    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in RECORDS), "utf-8")
    assert main(["assemble", str(path), "-q", "What does rule 3 say?", "--as-of", "2026-06-01"]) == 0
    err = capsys.readouterr().err
    assert err.count("note:") == 1 and "default tokenizer o200k_base" in err and "--model" in err
    assert main(["assemble", str(path), "-q", "What does rule 3 say?", "--as-of", "2026-06-01", "--json",
                 "--model", "gpt-4.1-mini"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)["report"]
    assert out.err == "" and report["settings"]["model"] == "gpt-4.1-mini" and report["budget"]["framing"] == 11
    assert main(["assemble", str(path), "-q", "q", "--as-of", "2026-06-01", "--model", "nope"]) == 2
    assert "unknown model 'nope'" in capsys.readouterr().err


class _CountingBackend:
    """Stands in for a server: reports the prompt tokens of a reference model, plus a planted error."""

    name, model, is_model = "fake", "fake", True

    def __init__(self, reference: TargetModel, off_by: int = 0) -> None:
        self.reference, self.off_by, self.calls = reference, off_by, []

    def complete(self, messages, sampling):
        from evidencepack.eval.backends import Completion

        self.calls.append(sampling.max_tokens)
        return Completion("x", "length", prompt_tokens=self.reference.request_tokens(messages) + self.off_by)


def test_token_check_passes_on_agreement_and_flags_any_difference(qwen_like):
    from evidencepack.data import corpus
    from evidencepack.eval.datasets import load_traps
    from evidencepack.eval.tokens import check_token_counts, token_table

    model = resolve_model(qwen_like)
    traps = load_traps(None, corpus=corpus())[:3]
    same = _CountingBackend(model)
    rows = check_token_counts(same, traps, corpus(), model)
    assert len(rows) == 6 and all(r.ok for r in rows) and set(same.calls) == {1}
    assert "6 of 6 requests counted exactly" in token_table(rows)
    off = check_token_counts(_CountingBackend(model, off_by=1), traps, corpus(), model, conditions=("structured",))
    assert not any(r.ok for r in off) and "| +1 |" in token_table(off)


def test_eval_tokens_command_against_an_http_server(qwen_like, capsys):
    """The CLI wiring: a local OpenAI-compatible server reporting the reference count; exit 0, then 1."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from evidencepack.cli import main

    reference = resolve_model(qwen_like)
    plan = {"off_by": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            usage = {"prompt_tokens": reference.request_tokens(body["messages"]) + plan["off_by"],
                     "completion_tokens": body["max_tokens"]}
            data = json.dumps({"model": body["model"], "usage": usage, "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "length"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        args = ["eval", "tokens", "--count-model", str(qwen_like), "--base-url",
                f"http://127.0.0.1:{server.server_address[1]}/v1", "--model", "tiny", "--limit", "2", "--quiet"]
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "4 of 4 requests counted exactly" in out and "| question | condition |" in out
        plan["off_by"] = -2
        assert main(args) == 1
        assert "| -2 |" in capsys.readouterr().out
    finally:
        server.shutdown()
        server.server_close()


def test_template_filters_and_tags_match_the_serving_stacks():
    pytest.importorskip("jinja2")
    template = ("{% for m in messages %}{% generation %}{{ m | tojson }}{% endgeneration %}"
                "{% if loop.index == 1 %}{% break %}{% endif %}{% endfor %}")
    model = resolve_model(len, chat_template=template)
    assert model.render([{"role": "user", "content": "café <b>"}, *MSGS]) == '{"role": "user", "content": "café <b>"}'


KEY = b"evidencepack-test-key-of-32-bytes"


def test_an_assembly_with_a_named_model_reruns_from_its_settings():
    from evidencepack.options import Options

    a = assemble(RECORDS, "What does rule 3 say?", as_of="2026-06-01", model="gpt-4.1-mini", boundary_key=KEY)
    assert a.report.settings["model"] == "gpt-4.1-mini"
    again = assemble(RECORDS, "What does rule 3 say?", boundary_key=KEY,
                     **Options.kwargs_from_settings(a.report.settings))
    assert again.to_json() == a.to_json()


# ---------------------------------------------------------------- the model's context window (issue 26)


LONG = [{"id": f"long{i:02d}", "text": " ".join(f"w{i}x{j}" for j in range(400)), "rank": i + 1} for i in range(60)]


def test_a_named_openai_model_budgets_for_its_own_window():
    a = assemble(LONG, "What do the records say?", as_of="2026-06-01", model="gpt-4o")
    b = a.report.budget
    assert b["context_window"] == 128_000 and "platform.openai.com/docs/models/gpt-4o" in b["context_window_source"]
    assert len(a.manifest) == 60
    snapshot = assemble(LONG[:2], "q?", as_of="2026-06-01", model="gpt-4o-mini-2024-07-18").report.budget
    assert snapshot["context_window"] == 128_000 and "gpt-4o-mini" in snapshot["context_window_source"]
    given = assemble(LONG, "q?", as_of="2026-06-01", model="gpt-4o", budget=Budget(context_window=8192))
    assert given.report.budget["context_window"] == 8192 and given.report.budget["context_window_source"] == "given"
    assert len(given.manifest) < 60
    plain = assemble(LONG[:2], "q?", as_of="2026-06-01").report.budget
    assert plain["context_window"] == 8192 and plain["context_window_source"] == "default: no model named"


def test_a_name_tiktoken_only_matches_by_prefix_is_refused():
    for name in ("gpt-5-turbo-nonexistent", "gpt-4o-hyper", "o3-ultra"):
        with pytest.raises(TokenizerError, match=rf"unknown OpenAI model '{name}'.*prefix.*context_window"):
            resolve_model(name)
    assert resolve_model("gpt-3.5").context_window is None  # tiktoken knows the exact name: accepted, window unknown
    a = assemble(LONG[:2], "q?", as_of="2026-06-01", model="gpt-3.5").report.budget
    assert a["context_window"] == 8192 and "window of gpt-3.5 is not known" in a["context_window_source"]


def test_a_gguf_context_length_is_the_window(tmp_path):
    pytest.importorskip("tokenizers")
    pytest.importorskip("jinja2")
    path = write_gguf(tmp_path / "long.gguf", context_length=32_768)
    model = resolve_model(path)
    assert model.context_window == 32_768 and model.window_source == "GGUF metadata llama.context_length"
    b = assemble(LONG[:3], "q?", as_of="2026-06-01", model=path).report.budget
    assert b["context_window"] == 32_768 and b["context_window_source"] == "model: GGUF metadata llama.context_length"


def test_a_hugging_face_config_gives_the_window(tmp_path):
    folder = write_hf(tmp_path / "tiny-hf", None)
    assert resolve_model(folder).context_window is None
    (folder / "config.json").write_text(json.dumps({"max_position_embeddings": 4096}), "utf-8")
    model = resolve_model(folder)
    assert model.context_window == 4096 and model.window_source == "config.json max_position_embeddings"


def test_the_window_source_survives_a_replay():
    from evidencepack.options import Options

    a = assemble(RECORDS, "q?", as_of="2026-06-01", model="gpt-4o", boundary_key=KEY)
    assert a.report.settings["context_window"] is None  # not given: the replay resolves it again
    again = assemble(RECORDS, "q?", boundary_key=KEY, **Options.kwargs_from_settings(a.report.settings))
    assert again.report.budget == a.report.budget


def test_gguf_merge_lines_split_as_llama_cpp_splits_them():
    from evidencepack.tokens.gguf import _merge_pairs

    assert _merge_pairs(["Ġ t", "h e", "a b c"]) == [("Ġ", "t"), ("h", "e"), ("a", "b c")]
    assert _merge_pairs([" a b", "h e"]) == [(" a", "b"), ("h", "e")]  # a leading space is part of the left
    for bad in (["he"], ["h e", "xy"], [" xy", "h e"]):
        with pytest.raises(TokenizerError, match="malformed merge"):
            _merge_pairs(bad)


def test_the_cli_refuses_a_guessed_model_name(tmp_path, capsys):
    from evidencepack.cli import main

    records = tmp_path / "r.jsonl"
    records.write_text(json.dumps({"id": "a", "text": "x"}) + "\n", "utf-8")
    assert main(["assemble", str(records), "-q", "q?", "--model", "gpt-5-turbo-nonexistent"]) == 2
    assert "unknown OpenAI model 'gpt-5-turbo-nonexistent'" in capsys.readouterr().err
    assert main(["assemble", str(records), "-q", "q?", "--model", "gpt-4o", "--json"]) == 0
    budget = json.loads(capsys.readouterr().out)["report"]["budget"]
    assert budget["context_window"] == 128_000 and budget["context_window_source"].startswith("model: ")
