"""One guarded JSON loader for every file evidencepack reads (assemblies, trap sets, corpora, records).

`json.loads` recurses once per nesting level, so a file of 100,000 `[` ends in a `RecursionError` traceback,
and anything that walks the parsed value later may recurse as deep. `loads` measures the nesting first (a
linear scan: strings removed by one regex, then a running count over the brackets that remain) and refuses a
value deeper than `max_depth` with the caller's error class, naming the file and never quoting its content.
Malformed JSON and numbers past Python's digit limit become the same kind of error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from .errors import EvidencepackError

#: Deeper than anything evidencepack writes (an assembly is 6 levels) or a sane metadata value needs.
MAX_DEPTH = 64
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: linear, no nested backtracking
_BRACKETS = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in a JSON text (0 for a scalar), ignoring brackets inside
    strings. Linear in the text; an unterminated string is treated as ending the text (json.loads will
    refuse it anyway)."""
    if "[" not in text and "{" not in text:
        return 0
    bare = _STRING.sub("", text)
    return max(accumulate(map(_STEP.__getitem__, _BRACKETS.findall(bare))), default=0)


def loads(text: str | bytes, *, name: str, error: Callable[[str], EvidencepackError],
          max_depth: int = MAX_DEPTH, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
          ) -> Any:
    """`json.loads(text)`, or `error(message)` raised with a message that starts with `name` (a file name or
    `stdin`; empty when the error class adds its own place, such as a line number) and says what is wrong:
    not JSON, nested deeper than `max_depth`, a number too long. Never quotes the content."""
    where = f"{name}: " if name else ""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise error(f"{where}not valid UTF-8 (byte {err.start})") from None
    if depth(text) > max_depth:
        raise error(f"{where}JSON nested too deeply (more than {max_depth} levels)")
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as err:
        said = f"{name} is not JSON" if name else "not valid JSON"
        raise error(f"{said}: {err.msg} (line {err.lineno}, column {err.colno})") from None
    except RecursionError:  # not reachable after the depth check, kept as the last line of defence
        raise error(f"{where}JSON nested too deeply") from None
    except ValueError:  # an integer longer than Python's digit limit
        raise error(f"{where}not valid JSON: a number is too long") from None
