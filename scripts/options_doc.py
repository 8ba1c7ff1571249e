#!/usr/bin/env python3
"""Regenerate docs/options.md from the option fields' metadata (tests/pipeline/test_options.py checks it is current).

    PYTHONPATH=src python scripts/options_doc.py
"""

from __future__ import annotations

from pathlib import Path

from evidencepack.options import reference_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "options.md"

if __name__ == "__main__":
    DOC.write_text(reference_markdown(), encoding="utf-8")
    print(f"wrote {DOC}")
