"""The one way to read an assembly for citation checks: an `Assembly`, its `to_dict()`, or the CLI's JSON.

Everything downstream (validation, policies, resolution, streaming) works on the typed `SourceIndex` this
module builds, so a crafted or damaged JSON file is rejected here, once, with an `AssemblyFormatError` that
names the field (never its value), instead of surfacing later as a KeyError or AttributeError.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

from ..errors import AssemblyFormatError, EvidencepackError
from ..passes.conflicts import Conflict, WithheldMember
from ..render.formats import read_blocks
from ..seal import check_index
from .handles import Grammar, handle_pattern

WEAK_AUTHORITIES = ("informal", "superseded")
ABOVE_CLEARANCE = "above_clearance"
SCHEMA_PREFIX = "evidencepack.assembly/"


@dataclass(frozen=True)
class Source:
    """A manifest entry: where a handle points. Only these server-side fields ever become link targets."""

    handle: str
    id: str
    status: str | None
    authority: str | None
    doc: str | None = None
    section: str | None = None
    url: str | None = None
    date: str | None = None  # the record's own date (ISO), for notes to the reader
    valid_from: str | None = None  # the validity window as the manifest gives it (ISO), for notes to the reader
    valid_until: str | None = None

    @property
    def weak(self) -> bool:
        """Expired, not yet valid, superseded or informal: context, not support."""
        return self.status != "current" or self.authority in WEAK_AUTHORITIES


@dataclass(frozen=True)
class Fate:
    """What the assembler did with one input record."""

    id: str
    decision: str  # "included" means it has a handle; anything else means the model never saw it as such
    reason: str | None = None
    duplicate_of: str | None = None


@dataclass(frozen=True, eq=False)
class SourceIndex:
    """What the validator needs from an assembly: the handle prefix, the manifest and every record's fate."""

    prefix: str
    sources: Mapping[str, Source]  # handle -> manifest entry
    fates: Mapping[str, Fate]  # record id -> what happened to it
    handle_of: Mapping[str, str]  # record id -> handle, for included records
    # The rendered prompt, for reading each source as the model saw it (attribution and value checks only;
    # None when the JSON has no prompt, which citation checks do not need).
    prompt: str | None = None
    boundary: str | None = None
    format: str | None = None
    # The known tensions the assembler reported (`report.conflicts`), for conflict notes; empty when absent.
    conflicts: tuple[Conflict, ...] = ()

    @classmethod
    def of(cls, assembly: Any) -> SourceIndex:
        return read_assembly(assembly)

    @cached_property
    def grammar(self) -> Grammar:
        """Record ids are recognised (to be reported) except those above the caller's clearance: a finding
        about such an id would confirm to the model, and to whoever reads the findings, that it exists."""
        return Grammar(self.prefix, frozenset(i for i, f in self.fates.items() if f.reason != ABOVE_CLEARANCE))

    @cached_property
    def passages(self) -> Mapping[str, str]:
        """Handle -> the source as the model saw it (header and text), read back from the rendered prompt,
        for the handles of the manifest only. Empty for a prompt without blocks (`flat`) or without a prompt."""
        if self.prompt is None or self.boundary is None or self.format is None:
            return MappingProxyType({})
        try:
            blocks = read_blocks(self.prompt, self.boundary, self.format)
        except (EvidencepackError, ValueError, KeyError, TypeError):  # flat, an unknown format, a damaged json block
            return MappingProxyType({})
        found: dict[str, str] = {}
        for b in blocks:
            if b.handle in self.sources:
                found.setdefault(b.handle, f"{b.header}\n{b.text}")
        return MappingProxyType(found)

    @cached_property
    def question(self) -> str:
        """The question line of the prompt ("" when there is none): values it contains count as given."""
        tail = (self.prompt or "").rsplit("\nQuestion: ", 1)
        return tail[1].split("\n", 1)[0] if len(tail) == 2 else ""


def read_assembly(assembly: Any) -> SourceIndex:
    """A `SourceIndex` from an `Assembly`, its `to_dict()`, or a `SourceIndex` (returned as is)."""
    if isinstance(assembly, SourceIndex):
        return assembly
    if isinstance(assembly, Mapping):  # a JSON from outside: its manifest must match its own prompt
        return check_index(_read(assembly))
    to_dict = getattr(assembly, "to_dict", None)
    if callable(to_dict) and hasattr(assembly, "manifest"):
        data = to_dict()
        if isinstance(data, Mapping):
            return _read(data)
    raise AssemblyFormatError(f"expected an evidencepack Assembly or its JSON object, got {type(assembly).__name__}")


def _fail(where: str, what: str) -> AssemblyFormatError:
    return AssemblyFormatError(f"not an evidencepack assembly: {where} {what}")


def _list(data: Mapping[str, Any], key: str, where: str) -> Sequence[Any]:
    if key not in data:
        raise _fail(where, "is missing")
    value = data[key]
    if not isinstance(value, list | tuple):
        raise _fail(where, "must be a list")
    return value


def _str(entry: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = entry.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise _fail(f"{where}.{key}", "must be a non-empty string" if required else "must be a string or null")
    return value


def _read(data: Mapping[str, Any]) -> SourceIndex:
    schema = data.get("schema")
    if schema is not None and not (isinstance(schema, str) and schema.startswith(SCHEMA_PREFIX)):
        raise _fail("schema", f"must start with {SCHEMA_PREFIX!r}")
    prefix = data.get("handle_prefix", "S")
    if not isinstance(prefix, str) or not re.fullmatch(r"[A-Za-z]{1,16}", prefix):
        raise _fail("handle_prefix", "must be 1 to 16 ASCII letters")
    report = data.get("report")
    if not isinstance(report, Mapping):
        raise _fail("report", "is missing or not an object")

    fates = _fates(report)
    sources, handle_of = _manifest(data, prefix, fates)
    boundary, fmt = (v if isinstance(v, str) else None for v in (data.get("boundary"), data.get("format")))
    return SourceIndex(prefix, MappingProxyType(sources), MappingProxyType(fates), MappingProxyType(handle_of),
                       _user_text(data), boundary, fmt, _conflicts(report, sources, fates))


def _fates(report: Mapping[str, Any]) -> dict[str, Fate]:
    """`report.records`: what the assembler did with each input record, by id."""
    fates: dict[str, Fate] = {}
    for i, entry in enumerate(_list(report, "records", "report.records")):
        where = f"report.records[{i}]"
        if not isinstance(entry, Mapping):
            raise _fail(where, "must be an object")
        record_id = _str(entry, "id", where, required=True)
        decision = _str(entry, "decision", where, required=True)
        assert record_id is not None and decision is not None
        fate = Fate(record_id, decision, _str(entry, "reason", where), _str(entry, "duplicate_of", where))
        if record_id in fates:
            # With on_invalid="drop" a repeated id is reported once more, as a duplicate of itself; the
            # copy that was kept decides what citing the id means. Any other repetition is not ours.
            if fate.reason != "duplicate" or fate.duplicate_of != record_id:
                raise _fail(where, "repeats an id")
            continue
        fates[record_id] = fate
    return fates


def _manifest(data: Mapping[str, Any], prefix: str, fates: Mapping[str, Fate]
              ) -> tuple[dict[str, Source], dict[str, str]]:
    """The manifest: handle -> source, and record id -> handle. Every entry must be an included record."""
    handle = handle_pattern(prefix, max_digits=9)
    sources: dict[str, Source] = {}
    handle_of: dict[str, str] = {}
    for i, entry in enumerate(_list(data, "manifest", "manifest")):
        where = f"manifest[{i}]"
        if not isinstance(entry, Mapping):
            raise _fail(where, "must be an object")
        h = _str(entry, "handle", where, required=True)
        record_id = _str(entry, "id", where, required=True)
        assert h is not None and record_id is not None
        if not handle.fullmatch(h):
            raise _fail(f"{where}.handle", f"must be {prefix} followed by a number")
        if h in sources or record_id in handle_of:
            raise _fail(where, "repeats a handle or id")
        known = fates.get(record_id)
        if known is None or known.decision != "included":
            raise _fail(where, "has no included record in report.records")
        sources[h] = Source(h, record_id, _str(entry, "status", where), _str(entry, "authority", where),
                            _str(entry, "doc", where), _str(entry, "section", where), _str(entry, "url", where),
                            _str(entry, "date", where), _str(entry, "valid_from", where),
                            _str(entry, "valid_until", where))
        handle_of[record_id] = h
    return sources, handle_of


def _conflicts(report: Mapping[str, Any], sources: Mapping[str, Source], fates: Mapping[str, Fate]
               ) -> tuple[Conflict, ...]:
    """`report.conflicts`, checked: every handle must be one of the manifest's, every withheld id a record
    the report accounts as `conflict_withheld` (absent key: none)."""
    if "conflicts" not in report:
        return ()
    found = []
    for i, entry in enumerate(_list(report, "conflicts", "report.conflicts")):
        where = f"report.conflicts[{i}]"
        if not isinstance(entry, Mapping):
            raise _fail(where, "must be an object")
        current = tuple(_handles(_list(entry, "current", f"{where}.current"), sources, f"{where}.current"))
        others = []
        for j, other in enumerate(_list(entry, "others", f"{where}.others")):
            at = f"{where}.others[{j}]"
            if not isinstance(other, Mapping):
                raise _fail(at, "must be an object")
            (handle,) = _handles([other.get("handle")], sources, f"{at}.handle")
            reasons = _list(other, "reasons", f"{at}.reasons")
            if not all(isinstance(r, str) for r in reasons):
                raise _fail(f"{at}.reasons", "must be a list of strings")
            others.append((handle, tuple(reasons)))
        withheld = _withheld(entry, fates, where) if "withheld" in entry else ()
        found.append(Conflict(_str(entry, "topic", where), current, tuple(others), withheld))
    return tuple(found)


def _withheld(entry: Mapping[str, Any], fates: Mapping[str, Fate], where: str) -> tuple[WithheldMember, ...]:
    members = []
    for j, item in enumerate(_list(entry, "withheld", f"{where}.withheld")):
        at = f"{where}.withheld[{j}]"
        if not isinstance(item, Mapping):
            raise _fail(at, "must be an object")
        record_id = _str(item, "id", at, required=True)
        fate = fates.get(record_id or "")
        if fate is None or fate.reason != "conflict_withheld":
            raise _fail(f"{at}.id", "must name a record report.records accounts as conflict_withheld")
        reasons = _list(item, "reasons", f"{at}.reasons")
        if not all(isinstance(r, str) for r in reasons):
            raise _fail(f"{at}.reasons", "must be a list of strings")
        members.append(WithheldMember(record_id or "", _str(item, "doc", at), _str(item, "section", at),
                                      tuple(reasons)))
    return tuple(members)


def _handles(values: Sequence[Any], sources: Mapping[str, Source], where: str) -> list[str]:
    if not all(isinstance(v, str) and v in sources for v in values):
        raise _fail(where, "must name handles of the manifest")
    return list(values)


def _user_text(data: Mapping[str, Any]) -> str | None:
    """The user message (where the sources and the question are), else the whole prompt; None if neither is
    text. The system prompt is left out: a worked example there must never be read as a source."""
    messages = data.get("messages")
    if isinstance(messages, list | tuple):
        users = [m.get("content") for m in messages if isinstance(m, Mapping) and m.get("role") == "user"]
        if users and isinstance(users[-1], str):
            return users[-1]
    prompt = data.get("prompt")
    return prompt if isinstance(prompt, str) else None
