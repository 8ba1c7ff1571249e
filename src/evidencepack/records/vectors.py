"""Vector helpers shared by the passes that compare caller-supplied embeddings."""

from __future__ import annotations

import math

from ..errors import RecordError


def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Cosine similarity; embeddings of different lengths are a caller error."""
    if len(a) != len(b):
        raise RecordError(f"embeddings of different lengths ({len(a)} and {len(b)}) cannot be compared",
                          field="embedding")
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
