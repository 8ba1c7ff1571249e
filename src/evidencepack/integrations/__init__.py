"""Native components for LangChain, LlamaIndex, Haystack and the OpenAI / Anthropic SDKs.

Each lives in its own module and needs its extra (`pip install 'evidencepack[langchain]'`, `[llamaindex]`,
`[haystack]`, `[openai]`, `[anthropic]`); nothing here is imported by `import evidencepack`. What the
components share (lenient assembly, the answer -> validate -> regenerate loop, streaming events) is in
`evidencepack.integrations.common` and needs no extra.
"""

from __future__ import annotations

import importlib.util

from ..errors import IntegrationInputError, MissingExtraError  # re-exported: their old home


def missing_extra(package: str, extra: str) -> MissingExtraError:
    """The error for an integration imported without its extra."""
    return MissingExtraError(f"this integration needs {package}: pip install 'evidencepack[{extra}]'")


def require(module: str, package: str, extra: str) -> None:
    """Fail early and clearly when `module` (from `package`) is not installed."""
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent is missing
        found = False
    if not found:
        raise missing_extra(package, extra)


__all__ = ["IntegrationInputError", "MissingExtraError", "missing_extra", "require"]
