import pytest

from evidencepack import CallableTokenizer, Layout, TokenizerError, get_tokenizer
from evidencepack.tokens.tokenizers import CountCache


@pytest.mark.parametrize("name, text, ids", [
    # Published in tiktoken's own test suite / README; the bundled files must reproduce them offline.
    ("cl100k_base", "hello world", [15339, 1917]),
    ("o200k_base", "hello world", [24912, 2375]),
    ("cl100k_base", " \x850", [220, 126, 227, 15]),
])
def test_bundled_encodings_match_published_ids(name, text, ids):
    assert list(get_tokenizer(name).encode(text)) == ids


def test_model_names_map_to_encodings():
    assert get_tokenizer("gpt-4o").name == "o200k_base"
    assert get_tokenizer("gpt-4").name == "cl100k_base"
    assert get_tokenizer(None).name == "o200k_base"


def test_special_token_strings_count_as_text():
    tok = get_tokenizer("o200k_base")
    assert tok.count("<|endoftext|>") > 1


def test_unknown_tokenizer_is_a_clear_error():
    with pytest.raises(TokenizerError, match="unknown tokenizer"):
        get_tokenizer("no-such-encoding")
    with pytest.raises(TokenizerError, match="not found"):
        get_tokenizer("missing/tokenizer.json")


def test_callable_tokenizer_and_cache():
    calls = []

    def words(text):
        calls.append(text)
        return len(text.split())

    tok = CallableTokenizer(words, "words")
    cache = CountCache()
    assert cache.count(tok, "a b c") == 3 and cache.count(tok, "a b c") == 3
    assert calls == ["a b c"] and cache.hits == 1


def test_hugging_face_tokenizer_json(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers

    hf = tokenizers.Tokenizer(models.WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    tok = get_tokenizer(str(path))
    assert tok.encode("hello world") == [0, 1] and tok.count("hello there world") == 3


@pytest.mark.parametrize("fmt", ["text", "compact", "xml", "markdown"])
def test_a_warm_assembly_never_tokenizes_the_whole_prompt_again(fmt: str) -> None:
    """A new question over records already costed sums cached counts of the prompt's pieces: the fit pass
    must not fall back to counting the joined prompt (it did for `compact`, whose question starts with one
    more newline than its separator)."""
    from evidencepack import assemble, get_tokenizer

    tok = get_tokenizer("o200k_base")
    records = [{"id": f"r{i}", "text": f"Record {i}: the rule number {i} says something different."}
               for i in range(8)]
    assemble(records, f"first question on {fmt}?", as_of="2026-06-01", tokenizer=tok, layout=Layout(format=fmt))
    lengths: list[int] = []
    count = tok.count

    def spy(text: str) -> int:
        lengths.append(len(text))
        return count(text)

    tok.count = spy  # type: ignore[method-assign]
    try:
        a = assemble(records, f"a second question on {fmt}?", as_of="2026-06-01", tokenizer=tok,
                     layout=Layout(format=fmt))
    finally:
        del tok.count
    assert lengths and max(lengths) < len(a.user) / 2
    assert tok.count(a.system) + tok.count(a.user) == a.report.budget["prompt_tokens"]  # and still exact
