from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture
def shared() -> Path:
    """../shared/ beside the checkout; tests that need it skip on a user's clone."""
    if not SHARED.is_dir():
        pytest.skip("../shared/ is not beside this checkout (it only exists in the project's workspace)")
    return SHARED


def rec(id: str, text: str | None = None, **kw) -> dict:
    return {"id": id, "text": text if text is not None else f"Text of record {id}.", **kw}
