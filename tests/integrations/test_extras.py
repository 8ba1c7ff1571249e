"""Each integration is importable only with its extra, and says which extra when it is missing."""

from __future__ import annotations

import importlib
import sys

import pytest

from evidencepack.errors import EvidencepackError
from evidencepack.integrations import MissingExtraError

CASES = [("langchain", ["langchain_core"], "evidencepack[langchain]"),
         ("llamaindex", ["llama_index", "llama_index.core"], "evidencepack[llamaindex]"),
         ("haystack", ["haystack"], "evidencepack[haystack]"),
         ("providers", ["openai", "anthropic"], "evidencepack[openai]"),
         ("ray", ["ray"], "evidencepack[ray]")]


@pytest.mark.parametrize(("module", "blocked", "extra"), CASES)
def test_missing_extra_names_it(monkeypatch, module, blocked, extra):
    name = f"evidencepack.integrations.{module}"
    monkeypatch.delitem(sys.modules, name, raising=False)
    for b in blocked:  # importing b (or any of its modules already loaded) now fails as if not installed
        for loaded in [m for m in sys.modules if m == b or m.startswith(b + ".")] or [b]:
            monkeypatch.setitem(sys.modules, loaded, None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None)
    with pytest.raises(MissingExtraError, match=extra.replace("[", r"\[").replace("]", r"\]")) as err:
        importlib.import_module(name)
    assert isinstance(err.value, EvidencepackError) and isinstance(err.value, ImportError)


def test_core_import_pulls_in_no_framework():
    code = ("import sys, evidencepack, evidencepack.integrations.adapters, evidencepack.integrations.common; "
            "print(sorted(m for m in ('langchain_core', 'llama_index', 'haystack', 'openai', 'anthropic') "
            "if m in sys.modules))")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
