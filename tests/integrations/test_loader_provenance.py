"""Loader provenance that leaks nothing and misleads no one (issue 25, item 7), with the real frameworks:
a server path never reaches the prompt (its file name does; the path stays in the manifest), a PDF's path
is kept beside its title, a filesystem time is never a document date, a page only for paged formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack import Admission, assemble
from evidencepack.integrations.adapters import display_name, haystack_dicts, langchain_dicts, llamaindex_dicts

AS_OF = "2026-01-01"
SERVER = "/srv/hr-internal/policies/handbook-2024.md"


def prompt_and_manifest(dicts: list[dict]) -> tuple[str, list]:
    a = assemble(dicts, "Carry over?", as_of=AS_OF, boundary_key="k" * 16, admission=Admission(on_invalid="drop"))
    return a.prompt, list(a.manifest)


def test_langchain_textloader_path_stays_server_side() -> None:
    docs = pytest.importorskip("langchain_core.documents")
    # What langchain_community's TextLoader returns: the absolute path as metadata["source"].
    doc = docs.Document(page_content="PTO does not carry over.", metadata={"source": SERVER})
    prompt, manifest = prompt_and_manifest(langchain_dicts([doc]))
    assert "/srv" not in prompt and "hr-internal" not in prompt
    assert '"handbook-2024.md"' in prompt
    assert manifest[0].doc == "handbook-2024.md" and manifest[0].url == SERVER


def test_langchain_pdf_with_a_title_keeps_its_path() -> None:
    docs = pytest.importorskip("langchain_core.documents")
    doc = docs.Document(page_content="x", metadata={"source": "/srv/hr/handbook.pdf", "title": "Employee Handbook",
                                                    "page": 3})
    [d] = langchain_dicts([doc])
    assert (d["doc"], d["url"], d["section"]) == ("Employee Handbook", "/srv/hr/handbook.pdf", "p. 4")
    prompt, manifest = prompt_and_manifest([d])
    assert "/srv" not in prompt and manifest[0].url == "/srv/hr/handbook.pdf"


def test_llamaindex_filesystem_dates_are_not_document_dates(tmp_path: Path) -> None:
    core = pytest.importorskip("llama_index.core")
    (tmp_path / "old-policy.md").write_text("Old policy: carry over 5 days.", "utf-8")
    (tmp_path / "notes.txt").write_text("Some notes.", "utf-8")
    nodes = core.SimpleDirectoryReader(str(tmp_path)).load_data()
    assert all("creation_date" in n.metadata for n in nodes)  # the reader does set filesystem times
    dicts = llamaindex_dicts(nodes)
    assert all("date" not in d for d in dicts)
    prompt, manifest = prompt_and_manifest(dicts)
    assert str(tmp_path) not in prompt
    assert {m.doc for m in manifest} == {"old-policy.md", "notes.txt"}
    assert {m.url for m in manifest} == {str(tmp_path / "old-policy.md"), str(tmp_path / "notes.txt")}
    assert all(m.date is None for m in manifest)


def test_haystack_text_files_have_no_page(tmp_path: Path) -> None:
    haystack = pytest.importorskip("haystack")
    from haystack.components.converters import TextFileToDocument
    from haystack.components.preprocessors import DocumentSplitter

    paths = []
    for name in ("policy.txt", "guide.md", "page.html"):
        path = tmp_path / name
        path.write_text("Sentence one. " * 80, "utf-8")
        paths.append(path)
    converted = TextFileToDocument().run(sources=paths)["documents"]
    chunks = DocumentSplitter(split_by="word", split_length=40).run(documents=converted)["documents"]
    assert len(chunks) > 3 and all(c.meta.get("page_number") == 1 for c in chunks)  # the splitter's default
    dicts = haystack_dicts(chunks)
    assert all("section" not in d for d in dicts)
    prompt, manifest = prompt_and_manifest(dicts)
    assert "p. 1" not in prompt and str(tmp_path) not in prompt
    assert {m.doc for m in manifest} <= {"policy.txt", "guide.md", "page.html"}
    pdf = haystack.Document(content="w", meta={"file_path": "/srv/c.pdf", "page_number": 2})
    assert haystack_dicts([pdf])[0]["section"] == "p. 2"  # a PDF has pages


def test_display_name() -> None:
    assert display_name("/srv/a/b/handbook.md") == "handbook.md"
    assert display_name("C:\\Users\\hr\\handbook.docx") == "handbook.docx"
    assert display_name("file:///srv/x/y.pdf") == "y.pdf"
    assert display_name("https://user:pw@hr.example/p?sig=SECRET#frag") == "https://hr.example/p"
    assert display_name("") is None and display_name(3) is None
