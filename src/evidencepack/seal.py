"""Sealed assemblies: an assembly JSON read back from disk or another service is checked before it is trusted.

An assembly's JSON decides what a citation means: the manifest says where `[S2]` points and whether that
source is current and authoritative. Anyone who can edit the file could otherwise turn an invalid citation
valid (mark S2 current) or invent one (append a manifest entry for `S9`). Two defences:

- **Structure, always** (`check_index`): every manifest handle must have a block in the prompt, every block a
  manifest entry, and where a block's header shows authority or validity, the manifest must say the same.
  This needs no key and catches an edit of the manifest alone; it cannot catch an edit of both.
- **A seal, with a key** (`seal`, `verify`): HMAC-SHA256 over the prompt, the messages, the manifest, the
  records' fates, the conflicts and the settings, stored under the assembly JSON's `seal` key. The MAC key
  is derived from the boundary key (HMAC(key, "evidencepack.seal/1")), so the seal reveals nothing about the
  boundary and an assembly object never holds the boundary key itself. Only an assembly made with a key the
  caller set (argument or `EVIDENCEPACK_BOUNDARY_KEY`) is sealed: a random per-process key could never be
  checked later. `validate` and `inspect` verify with `EVIDENCEPACK_BOUNDARY_KEY` when it is set (never from
  argv); a missing or wrong seal is an `AssemblyFormatError` (exit 2).

`check_replayed_settings` refuses settings read back from a JSON that would widen what the caller allows.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import AssemblyFormatError, EvidencepackError, OptionError
from .records.record import AUTHORITIES, SENSITIVITIES
from .render.formats import get_format, read_blocks
from .render.prompts import BOUNDARY_KEY_ENV, checked_boundary_key

if TYPE_CHECKING:
    from .citations.source import SourceIndex

SEAL = "seal"
_SEAL_PREFIX = "hmac-sha256:"
_CONTEXT = b"evidencepack.seal/1"
#: The top-level keys and `report` keys a seal covers: everything a validator or a replay reads.
SEALED_KEYS = ("schema", "prompt", "messages", "manifest", "boundary", "format", "handle_prefix")
SEALED_REPORT_KEYS = ("records", "conflicts", "settings")


def sealing_key(key: bytes | None) -> bytes | None:
    """The MAC key for an assembly made with `key` (the caller's, already checked), else with the
    environment's key; None when neither is set (the boundary then came from a random per-process key)."""
    if key is None:
        env = os.environ.get(BOUNDARY_KEY_ENV)
        if not env:
            return None
        key = checked_boundary_key(env)
    return hmac.new(key, _CONTEXT, hashlib.sha256).digest()


def _material(data: Mapping[str, Any]) -> bytes:
    """The sealed part of an assembly dict, in one canonical byte form (sorted keys, ASCII, no spaces)."""
    report = data.get("report")
    covered = {k: data.get(k) for k in SEALED_KEYS}
    covered["report"] = {k: report.get(k) for k in SEALED_REPORT_KEYS} if isinstance(report, Mapping) else None
    try:
        return json.dumps(covered, sort_keys=True, ensure_ascii=True, separators=(",", ":"),
                          allow_nan=False).encode("ascii")
    except (TypeError, ValueError, RecursionError):
        raise AssemblyFormatError("not an evidencepack assembly: a sealed field is not plain JSON") from None


def seal(data: Mapping[str, Any], mac_key: bytes) -> str:
    """The seal of an assembly dict (without its own `seal` key) under a key from `sealing_key`."""
    return _SEAL_PREFIX + hmac.new(mac_key, _material(data), hashlib.sha256).hexdigest()


def verify(data: Mapping[str, Any], key: bytes | str) -> None:
    """Raise `AssemblyFormatError` unless `data` carries the seal `key` gives it. The message never shows
    either seal."""
    mac_key = sealing_key(checked_boundary_key(key))
    assert mac_key is not None
    given = data.get(SEAL)
    if not isinstance(given, str):
        raise AssemblyFormatError("assembly has no seal, but a boundary key is set: it was made without the key, "
                                  "or the seal was removed")
    if not hmac.compare_digest(given.encode("utf-8", "replace"), seal(data, mac_key).encode("ascii")):
        raise AssemblyFormatError("assembly seal does not match: the file was changed after it was made, or made "
                                  "with another key")


def verify_env(data: Any) -> Any:
    """`data` itself, after `verify` with `EVIDENCEPACK_BOUNDARY_KEY` when that is set (the CLI's readers
    call this; the key never comes from argv). Not a dict: returned as is, for the reader to refuse."""
    key = os.environ.get(BOUNDARY_KEY_ENV)
    if key and isinstance(data, Mapping):
        verify(data, key)
    return data


# ---------------------------------------------------------------------------------------------- structure


_VALIDITY = re.compile(r"(current)|(expired)(?: since .*)?|(not valid until) .*", re.IGNORECASE)
_QUOTED = re.compile(r'"[^"]*"')
_HANDLE = re.compile(r"^\*\*\[\w+\]\*\* ?|^\[\w+\] ?\(|\)$")  # text's `[S1] (…)`, markdown's `**[S1]** …`
_STATUS_OF = {"current": "current", "expired": "expired", "not valid until": "not_yet_valid"}


def _status(value: str) -> str | None:
    m = _VALIDITY.fullmatch(value.strip())
    return _STATUS_OF[(m.group(1) or m.group(2) or m.group(3)).casefold()] if m else None


def header_claims(fmt: str, header: str) -> dict[str, str]:
    """What a rendered header says about authority and validity (`{"authority": "informal", "status":
    "expired"}`), read from the format's own syntax; empty for a header that shows neither."""
    pairs: list[tuple[str, str]]
    if fmt == "json":
        try:
            obj = json.loads(header)
        except ValueError:
            return {}
        pairs = [(str(k), v) for k, v in obj.items() if isinstance(v, str)] if isinstance(obj, dict) else []
    elif fmt == "xml":
        pairs = re.findall(r'([\w.:-]+)="([^"]*)"', header)
    else:
        bare = _HANDLE.sub("", _QUOTED.sub('""', header))
        segments = [s.strip() for s in bare.split(" \u00b7 ")]
        pairs = [tuple(s.split(": ", 1)) if ": " in s else ("", s) for s in segments]  # type: ignore[misc]
    found: dict[str, str] = {}
    for name, value in pairs:
        if name in ("authority", "") and value in AUTHORITIES:
            found.setdefault("authority", value)
        elif name in ("validity", "") and (status := _status(value)) is not None:
            found.setdefault("status", status)
    return found


def check_index(index: SourceIndex) -> SourceIndex:
    """Refuse an assembly whose manifest does not match its own prompt (see the module doc): a handle
    without a block, a block without a handle, or a header whose authority or validity the manifest
    contradicts. Assemblies without a prompt, boundary or block format are not checked here (a seal covers
    them)."""
    if index.prompt is None or index.boundary is None or index.format is None:
        return index
    try:
        if not get_format(index.format).has_blocks:
            return index
        blocks = read_blocks(index.prompt, index.boundary, index.format)
    except (EvidencepackError, ValueError, KeyError, TypeError):
        raise AssemblyFormatError("not an evidencepack assembly: format or prompt cannot be read") from None
    in_prompt = {b.handle: b for b in blocks}
    for handle, source in index.sources.items():
        block = in_prompt.get(handle)
        if block is None:
            raise AssemblyFormatError(f"not an evidencepack assembly: manifest handle {handle} has no block in the "
                                      "prompt")
        claims = header_claims(index.format, block.header)
        if "authority" in claims and claims["authority"] != (source.authority or "unknown"):
            raise AssemblyFormatError(f"not an evidencepack assembly: manifest {handle}.authority does not match "
                                      "its block in the prompt")
        if "status" in claims and claims["status"] != source.status:
            raise AssemblyFormatError(f"not an evidencepack assembly: manifest {handle}.status does not match its "
                                      "block in the prompt")
    extra = sorted(set(in_prompt) - set(index.sources))
    if extra:
        raise AssemblyFormatError(f"not an evidencepack assembly: block {extra[0]} in the prompt has no manifest "
                                  "entry")
    return index


# ---------------------------------------------------------------------------------------------- replay


def check_replayed_settings(settings: Mapping[str, Any], *, clearance: str) -> None:
    """Refuse `report.settings` read back from an assembly JSON (to re-run it) that would widen what the
    caller allows: a clearance above the caller's `clearance`, a system template (it is not neutralised,
    so a template in a file is an instruction channel), question neutralising turned off. Raises
    `OptionError` naming the setting, never its value. Call it before `Options.kwargs_from_settings`."""
    if clearance not in SENSITIVITIES:
        raise OptionError(f"clearance must be one of {', '.join(SENSITIVITIES)}")
    replayed = settings.get("clearance", "internal")
    if replayed not in SENSITIVITIES:
        raise OptionError("replayed settings: clearance is not a known level")
    if SENSITIVITIES.index(replayed) > SENSITIVITIES.index(clearance):
        raise OptionError("replayed settings: clearance is wider than the caller's; pass clearance yourself")
    if settings.get("system_template") is not None:
        raise OptionError("replayed settings: system_template is not replayed from a file; pass it yourself")
    if settings.get("neutralise_question") is False:
        raise OptionError("replayed settings: neutralise_question=False is not replayed from a file; pass it "
                          "yourself")


# ---------------------------------------------------------------------------------------------- error text

_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]]{0,63}")


def field_name(err: BaseException) -> str:
    """What to name in an error about a malformed assembly: the missing key when the error is a `KeyError`
    on a field-like name, else only "field". Never the text of the exception, which may quote a value."""
    key = err.args[0] if isinstance(err, KeyError) and err.args else None
    return f"field {key}" if isinstance(key, str) and _FIELD_NAME.fullmatch(key) else "field"


#: The budget figures an assembly's report gives as numbers (the inspector draws its bar from them).
BUDGET_NUMBERS = ("context_window", "system_prompt", "question", "output_reserve", "safety_margin",
                  "retrieval_budget", "used", "left", "framing", "prompt_tokens")


def check_numbers(values: Any, where: str, names: tuple[str, ...] = BUDGET_NUMBERS) -> None:
    """Each of `names` present in the mapping `values` must be a number or null; the error names the field,
    never the value."""
    if not isinstance(values, Mapping):
        raise AssemblyFormatError(f"not an evidencepack assembly: {where} must be an object")
    for name in names:
        value = values.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise AssemblyFormatError(f"not an evidencepack assembly: {where}.{name} must be a number")
