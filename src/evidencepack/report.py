"""What an assembly produces: the prompt (as text and chat messages), the manifest and the report.

`report_table` prints the report for a person. The books themselves are kept by `passes.ledger`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .passes.conflicts import Conflict
from .seal import SEAL, seal

SCHEMA = "evidencepack.assembly/1"


@dataclass(frozen=True)
class ManifestEntry:
    """Where a handle points. Built from records only: nothing in a record's text can change it."""

    handle: str
    id: str
    position: int
    rank: int
    tokens: int
    status: str
    authority: str
    sensitivity: str
    doc: str | None = None
    section: str | None = None
    url: str | None = None
    date: str | None = None
    source_system: str | None = None
    topic: str | None = None
    absorbed: tuple[str, ...] = ()
    valid_from: str | None = None  # the validity window (ISO), so a reader-facing note can date an expiry
    valid_until: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["absorbed"] = list(self.absorbed)
        return out


@dataclass(frozen=True)
class Outcome:
    """One input record's fate."""

    id: str
    decision: str  # "included" | "dropped"
    rank: int
    reason: str | None = None
    duplicate_of: str | None = None
    handle: str | None = None
    position: int | None = None
    tokens: int | None = None
    detail: str | None = None
    notes: tuple[str, ...] = ()  # field values left out under on_invalid="drop"

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Report:
    """Every input record's fate, the budget arithmetic, conflicts, and where the tokens went."""

    budget: Mapping[str, Any]
    conflicts: tuple[Conflict, ...]
    neutralised: Mapping[str, Mapping[str, int]]
    injection_scores: Mapping[str, float]
    settings: Mapping[str, Any]
    breakdown: Callable[[], dict[str, Any]] = field(default=dict, repr=False, compare=False)
    outcomes: Callable[[], tuple[Outcome, ...]] = field(default=tuple, repr=False, compare=False)
    caching: Callable[[], dict[str, Any]] = field(default=dict, repr=False, compare=False)

    @cached_property
    def records(self) -> tuple[Outcome, ...]:
        """Every input record, in rank order, exactly once. Listed on first use: records the budget pass
        never reached cost nothing until someone reads their line."""
        return self.outcomes()

    @cached_property
    def tokens(self) -> dict[str, Any]:
        """Source tokens split into record text, headers and delimiters, each field, and the notice. Counted
        on first use: it re-tokenizes every block's parts, which assembly itself never needs."""
        return self.breakdown()

    @cached_property
    def cache(self) -> dict[str, Any]:
        """The cacheable prefix: `prefix_tokens` (system prompt and the user message up to the question's
        line, identical for any question over the same records), `question_tokens` (the rest),
        `prefix_share`. Counted on first use."""
        return self.caching()

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": [o.to_dict() for o in self.records],
            "budget": dict(self.budget),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "tokens": dict(self.tokens),
            "neutralised": {k: dict(v) for k, v in self.neutralised.items()},
            "injection_scores": dict(self.injection_scores),
            "settings": dict(self.settings),
            "cache": dict(self.cache),
        }


@dataclass(frozen=True)
class Assembly:
    """What `assemble` returns: the prompt (as one string and as chat messages), manifest and report."""

    system: str
    user: str
    manifest: tuple[ManifestEntry, ...]
    report: Report
    boundary: str
    format: str
    handle_prefix: str = "S"
    #: The MAC key derived from the caller's boundary key (`seal.sealing_key`); None: the JSON is not sealed.
    seal_key: bytes | None = field(default=None, repr=False, compare=False)
    #: Where the question-dependent part of `user` starts: `user[:cache_split]` is the same for any question
    #: over the same records (None: unknown, the whole message is one block).
    cache_split: int | None = None

    @property
    def prompt(self) -> str:
        return f"{self.system}\n\n{self.user}"

    @property
    def messages(self) -> list[dict[str, str]]:
        """OpenAI-style chat messages."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    def anthropic(self) -> dict[str, Any]:
        """Keyword arguments for Anthropic's Messages API (`system` is separate there), with `cache_control`
        breakpoints after the system prompt and after the sources, so a second question over the same records
        reads both from the provider's cache (Anthropic ignores a breakpoint below its minimum length)."""
        return {"system": [cached_block(self.system)],
                "messages": [{"role": "user", "content": user_blocks(self.user, self.cache_split)}]}

    def handle(self, handle: str) -> ManifestEntry | None:
        return next((m for m in self.manifest if m.handle == handle), None)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "schema": SCHEMA,
            "prompt": self.prompt,
            "messages": self.messages,
            "manifest": [m.to_dict() for m in self.manifest],
            "report": self.report.to_dict(),
            "boundary": self.boundary,
            "format": self.format,
            "handle_prefix": self.handle_prefix,
        }
        if self.seal_key is not None:
            out[SEAL] = seal(out, self.seal_key)
        return out

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)


def cached_block(text: str) -> dict[str, Any]:
    """One Anthropic text block with an ephemeral cache breakpoint after it."""
    return {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}


def user_blocks(user: str, split: int | None) -> list[dict[str, Any]]:
    """The user message as Anthropic content blocks: the sources (a cache breakpoint after them), then the
    question part; one block when the split is unknown."""
    if split is None or not 0 < split < len(user):
        return [cached_block(user)] if split == len(user) else [{"type": "text", "text": user}]
    return [cached_block(user[:split]), {"type": "text", "text": user[split:]}]


def report_table(result: Assembly) -> str:
    """The report as a fixed-width table a person can read."""
    status = {m.id: (m.status, m.authority) for m in result.manifest}
    rows = [("rank", "id", "decision", "handle/reason", "pos", "tokens", "status", "authority")]
    for o in result.report.records:
        st, auth = status.get(o.id, ("", "")) if o.decision == "included" else ("", "")
        what = o.handle if o.decision == "included" else (
            f"{o.reason} of {o.duplicate_of}" if o.duplicate_of else o.reason)
        rows.append((str(o.rank), o.id, o.decision, what or "", str(o.position or ""),
                     str(o.tokens or ""), st, auth))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    b = result.report.budget
    lines.append("")
    framing = f" + framing {b['framing']}" if b.get("framing") else ""
    source = b.get("context_window_source", "given")
    window = b["context_window"] if source == "given" else f"{b['context_window']} ({source})"
    lines.append(f"budget: window {window} = system {b['system_prompt']} + question {b['question']}"
                 f"{framing} + output {b['output_reserve']} + margin {b['safety_margin']} + retrieval "
                 f"{b['retrieval_budget']}; used {b['used']}, left {b['left']}")
    c = result.report.cache
    lines.append(f"cache: {c['prefix_tokens']} tokens before the question are the same for any question over "
                 f"these records (a provider's prompt cache can reuse them); {c['question_tokens']} from the "
                 "question on")
    t = result.report.tokens
    lines.append(f"source tokens: {t['blocks']} in blocks = {t['text']} text + {t['headers_and_delimiters']} "
                 f"headers and delimiters; notice {t['notice']}; per field: "
                 + ", ".join(f"{k} {v}" for k, v in t["fields"].items()))
    return "\n".join(lines)
