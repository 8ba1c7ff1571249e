"""Streaming validation: findings as the answer arrives, at a cost proportional to the new text.

`feed` pushes a chunk through the same incremental scanner batch validation uses, so each chunk is examined
once, plus a bounded look at a run or bracket left open by the previous chunk. A citation is reported as
soon as nothing later can change it: when its closing bracket arrives, or, after an unclosed backtick run,
when the run closes or its unit ends. `close` returns exactly the verdict batch validation gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CitationInputError
from .handles import Cite
from .markdown import Group, Scanner
from .model import Finding, Verdict, check_text
from .severities import Severities, Severity, severities_of
from .source import read_assembly
from .validate import Embed, finding_for, judge, verdict_of


class StreamValidator:
    """Validate as tokens arrive: `feed(chunk)` returns the findings of citations completed by this chunk
    (`sentence` is -1: sentences are known at the end); `close()` gives the full verdict."""

    def __init__(self, assembly: Any, *, severities: Severities | Mapping[str, Severity] | None = None,
                 attribute: bool = False, embed: Embed | None = None, uncited: Severity | None = None,
                 stale_only: Severity | None = None, unsupported_value: Severity | None = None,
                 stale_value: Severity | None = None) -> None:
        """`severities` as `validate_citations` takes it (the per-kind keywords warn, as there)."""
        self._levels = severities_of(severities, uncited=uncited, stale_only=stale_only,
                                     unsupported_value=unsupported_value, stale_value=stale_value)
        self._attribute, self._embed = attribute, embed
        self._index = read_assembly(assembly)
        self._chunks: list[str] = []
        self._cites: list[Cite] = []
        self._new: list[Finding] = []
        self._scanner = Scanner(self._found)
        self._verdict: Verdict | None = None

    def _found(self, group: Group) -> None:
        for cite in self._index.grammar.classify(group.start, group.text):
            self._cites.append(cite)
            finding = finding_for(cite, judge(cite, self._index)[1], self._levels)
            if finding:
                self._new.append(finding)

    @property
    def work(self) -> int:
        """Characters the scanner has examined so far (linear in the text fed, however it was split)."""
        return self._scanner.work

    def feed(self, chunk: str) -> list[Finding]:
        if self._verdict is not None:
            raise CitationInputError("feed() after close(): start a new StreamValidator")
        self._chunks.append(check_text(chunk, "chunk"))
        self._scanner.push(chunk)
        new, self._new = self._new, []
        return new

    def close(self) -> Verdict:
        """The verdict on everything fed (the same as `validate_citations` on the joined text)."""
        if self._verdict is None:
            self._scanner.finish()
            self._verdict = verdict_of("".join(self._chunks), self._cites, self._scanner.units, self._index,
                                       self._levels, attribute=self._attribute, embed=self._embed)
        return self._verdict
