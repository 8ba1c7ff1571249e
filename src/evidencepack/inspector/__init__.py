"""The assembly inspector: one self-contained HTML page that shows what the model saw, and why."""

from .page import inspector_html, load_assembly, write_inspector

__all__ = ["inspector_html", "load_assembly", "write_inspector"]
