"""The option groups: each checks itself, the presets are the measured layouts, the settings replay to the same
bytes, and the command line and docs/options.md are generated from the same fields."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import MISSING, replace
from pathlib import Path
from typing import Any

import pytest

from evidencepack import (
    LAYOUTS,
    Admission,
    Budget,
    BudgetError,
    Dedup,
    Layout,
    OptionError,
    Options,
    assemble,
)
from evidencepack.cli import build_parser, main
from evidencepack.data import corpus
from evidencepack.options import GROUPS, OptionRow, option_rows, reference_markdown

ROOT = Path(__file__).resolve().parents[2]
AS_OF = "2026-06-01"
KEY = b"options-test-key-not-a-secret-0000"
RECORDS = [r.to_dict() for r in corpus()[:24]]
QUESTION = "Does unused PTO carry over?"


# -- each group checks itself, naming the option -----------------------------------------------------------

@pytest.mark.parametrize("make, needle", [
    (lambda: Admission(clearance="top-secret"), "clearance"),
    (lambda: Admission(on_invalid="ignore"), "on_invalid"),
    (lambda: Admission(exclude_expired=1), "exclude_expired"),
    (lambda: Admission(exclude_not_yet_valid="no"), "exclude_not_yet_valid"),
    (lambda: Admission(strict=None), "strict"),
    (lambda: Admission(injection_threshold=math.nan), "injection_threshold"),
    (lambda: Admission(injection_threshold=True), "injection_threshold"),
    (lambda: Dedup(threshold=0.0), "dedup_threshold"),
    (lambda: Dedup(threshold="0.8"), "dedup_threshold"),
    (lambda: Dedup(embedding_cutoff=1.5), "embedding_cutoff"),
    (lambda: Layout(format="yaml"), "format"),
    (lambda: Layout(order="ordr"), "order"),
    (lambda: Layout(profile="fancy"), "profile"),
    (lambda: Layout(profile=("doc", "")), "profile"),
    (lambda: Layout(conflict_policy="ignore"), "conflict_policy"),
    (lambda: Layout(abstain="never"), "abstain"),
    (lambda: Layout(conflict_notice="yes"), "conflict_notice"),
    (lambda: Layout(notice_placement="top"), "notice_placement"),
    (lambda: Layout(notice_style="loud"), "notice_style"),
    (lambda: Layout(answer_form="essay"), "answer_form"),
    (lambda: Layout(answer_form=True), "answer_form"),
    (lambda: Layout(reminder=1), "reminder"),
    (lambda: Layout(example="x"), "example"),
    (lambda: Layout(system_template=b"x"), "system_template"),
    (lambda: Layout(handle_prefix="S_"), "handle_prefix"),
    (lambda: Layout(marking="bold"), "marking"),
    (lambda: Layout(conflict_embedding_threshold=2), "conflict_embedding_threshold"),
    (lambda: Layout(neutralise_question=0), "neutralise_question"),
    (lambda: Layout(format="flat", reminder=True), "reminder"),
    (lambda: Layout(answer_form="conflict_form", notice_style="directive"), "conflict_form"),
    (lambda: Layout(answer_form="conflict_form", conflict_notice=False), "conflict_form"),
    (lambda: Options(as_of="someday"), "as_of"),
    (lambda: Options(as_of=AS_OF, layout=Admission()), "layout"),
])
def test_each_group_refuses_a_bad_value_naming_it(make: Any, needle: str) -> None:
    with pytest.raises(OptionError, match=needle):
        make()


@pytest.mark.parametrize("kwargs, needle", [
    ({"context_window": 0}, "context_window"), ({"output_reserve": -1}, "output_reserve"),
    ({"safety_margin": 1.5}, "safety_margin"), ({"max_records": True}, "max_records"),
    ({"fill_gaps": "yes"}, "fill_gaps"),
])
def test_a_bad_budget_figure_is_a_budget_error_naming_it(kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(BudgetError, match=needle):
        Budget(**kwargs)


def test_groups_are_frozen_and_normalised() -> None:
    layout = Layout(profile=["doc", "section"])
    assert layout.profile == ("doc", "section")
    with pytest.raises(AttributeError):
        layout.order = "ranked"  # type: ignore[misc]
    assert Layout() == Layout.preset("default") and hash(Layout()) == hash(Layout.preset("default"))


# -- presets --------------------------------------------------------------------------------------------

def test_the_presets_are_the_measured_layouts() -> None:
    assert LAYOUTS["default"] == Layout()
    # the default is `decide-form`'s layout wherever there are source blocks, and `small`'s policy without them
    assert (Layout().conflict_policy, Layout().form) == ("withhold", "rule_form")
    assert Layout(format="flat").form is None and Layout(format="flat").conflict_policy == "withhold"
    structured = Layout.preset("structured")  # the earlier default, pinned
    assert structured == Layout(conflict_policy="surface", answer_form=None)
    original = Layout.preset("original")
    assert (original.format, original.profile, original.order, original.abstain, original.conflict_notice,
            original.conflict_policy, original.form) == ("text", "policy", "edges", "if-unanswered", True, "surface",
                                                         None)
    flat = Layout.preset("flat")
    assert (flat.format, flat.order, flat.conflict_policy) == ("flat", "edges", "surface")
    assert Layout.preset("scaffold") == replace(structured, reminder=True, answer_form="scaffold")
    assert Layout.preset("conflict-form") == replace(structured, answer_form="conflict_form")
    assert Layout.preset("decide") == Layout(answer_form=None)
    assert Layout.preset("untrusted") == Layout(marking="datamark")
    assert Layout.presets() == tuple(LAYOUTS)
    with pytest.raises(OptionError, match="preset"):
        Layout.preset("fancy")


def test_variants_switch_options_on_and_refuse_two_answer_forms() -> None:
    assert Layout.preset("original").with_variants("compact", "authority-edges", "last-resort", "redact-flagged") == \
        replace(Layout.preset("structured"), profile="policy")
    with pytest.raises(OptionError, match="answer_form"):
        Layout().with_variants("scaffold", "conflict-form")
    with pytest.raises(OptionError, match="variant"):
        Layout().with_variants("louder")


def test_a_preset_gives_the_same_prompt_as_its_fields() -> None:
    for name, layout in LAYOUTS.items():
        fields = {f: getattr(layout, f) for f in ("format", "profile", "order", "abstain", "reminder", "answer_form",
                                                  "conflict_policy", "marking", "on_flagged")}
        a = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, layout=Layout.preset(name))
        b = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, layout=Layout(**fields))
        assert a.to_json() == b.to_json(), name


# -- settings replay --------------------------------------------------------------------------------------

def _other_value(row: OptionRow) -> Any:
    """A valid value other than the default, for each option (None: the option has no such value here)."""
    spec, default = row.spec, row.default
    if spec.choices is not None:
        return next(c for c in spec.choices() if c != default)
    if isinstance(default, bool):
        return not default
    special = {"profile": ["doc", "status"], "answer_form": "scaffold", "system_template": "Code $boundary.",
               "handle_prefix": "Src", "max_records": 5, "context_window": 6000, "output_reserve": 500,
               "safety_margin": 64, "injection_threshold": 0.7, "threshold": 0.9, "embedding_cutoff": 0.97,
               "conflict_embedding_threshold": None}
    return special.get(row.name)


GROUP_ROWS = [r for r in option_rows() if r.group]
#: Options that mean something only beside another option's value: set together.
NEEDS = {"mention_withheld": {"conflict_policy": "withhold"}}


@pytest.mark.parametrize("row", GROUP_ROWS, ids=lambda r: f"{r.group}.{r.name}")
def test_every_option_replays_from_its_settings_to_the_same_bytes(row: OptionRow) -> None:
    """assemble -> report.settings (through JSON) -> Options.from_settings -> assemble: same bytes."""
    value = _other_value(row)
    group = dict(GROUPS)[row.group](**{row.name: value, **NEEDS.get(row.name, {})})
    a = assemble(RECORDS, QUESTION, as_of=AS_OF, boundary_key=KEY, **{row.group: group})
    settings = json.loads(a.to_json())["report"]["settings"]
    assert settings == a.report.settings
    again = assemble(RECORDS, QUESTION, options=Options.from_settings(settings, boundary_key=KEY))
    assert again.to_json() == a.to_json()
    kwargs = Options.kwargs_from_settings(settings)
    assert getattr(kwargs[row.group], row.name) == getattr(group, row.name)


def test_top_level_options_replay_too() -> None:
    a = assemble(RECORDS, QUESTION, as_of="2025-03-01", tokenizer="cl100k_base", boundary_key=KEY)
    again = assemble(RECORDS, QUESTION, options=Options.from_settings(a.report.settings, boundary_key=KEY))
    assert again.to_json() == a.to_json()
    assert a.report.settings["boundary_key_given"] is True and "boundary_key" not in a.report.settings


def test_options_is_accepted_and_explicit_groups_replace_its_own() -> None:
    base = Options(as_of=AS_OF, layout=Layout.preset("original"), boundary_key=KEY)
    a = assemble(RECORDS, QUESTION, options=base)
    b = assemble(RECORDS, QUESTION, as_of=AS_OF, layout=Layout.preset("original"), boundary_key=KEY)
    assert a.to_json() == b.to_json()
    c = assemble(RECORDS, QUESTION, options=base, layout=Layout())
    assert c.report.settings["format"] == "compact" and c.report.settings["as_of"] == AS_OF


def test_settings_with_an_unknown_key_are_refused() -> None:
    with pytest.raises(OptionError, match="colour"):
        Options.kwargs_from_settings({"colour": "red"})


# -- the command line: one flag per option, generated ------------------------------------------------------

def _assemble_parser() -> Any:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["assemble"]


def _expected_flags() -> set[str]:
    flags = set()
    for row in option_rows():
        if row.spec.cli == "env":
            continue
        if row.spec.cli == "consts":
            flags |= {flag for flag, _, _ in row.spec.consts}
        else:
            flags.add(row.spec.flag_name(row.name))
    return flags


def test_every_option_has_its_flag_and_every_flag_an_option() -> None:
    parser = _assemble_parser()
    own = {"-h", "--help", "--question", "-q", "--json", "--pretty", "--report", "--html", "--layout"}
    flags = {s for a in parser._actions for s in a.option_strings} - own
    assert flags == _expected_flags()
    # The 1.x flags keep their names.
    assert {"--window", "--lazy", "--no-notice", "--scaffold", "--conflict-form", "--tokenizer", "--model",
            "--as-of", "--injection-threshold", "--on-invalid"} <= flags
    # A secret never comes from argv.
    assert not any("key" in f for f in flags)


def _argv_for(row: OptionRow, value: Any, tmp_path: Path) -> list[str]:
    spec, flag = row.spec, row.spec.flag_name(row.name)
    if spec.cli in ("switch", "negate"):
        return [flag]
    if spec.cli == "consts":
        return [next(f for f, v, _ in spec.consts if v == value)]
    if spec.cli == "file":
        path = tmp_path / "template.txt"
        path.write_text(value, encoding="utf-8")
        return [flag, str(path)]
    if spec.cli == "profile":
        return [flag, ",".join(value)]
    return [flag, "none" if value is None else str(value)]


@pytest.mark.parametrize("row", [r for r in GROUP_ROWS], ids=lambda r: f"{r.group}.{r.name}")
def test_each_flag_sets_its_option(row: OptionRow, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    value = _other_value(row)
    if row.spec.cli == "negate" and row.spec.cli_default is not True:
        value = not row.default
    elif row.spec.cli == "negate":
        value = False  # --lazy: the command line's default is strict
    needed = [a for name, v in NEEDS.get(row.name, {}).items()
              for a in _argv_for(next(r for r in GROUP_ROWS if r.name == name), v, tmp_path)]
    assert main(["assemble", str(records), "-q", QUESTION, "--as-of", AS_OF, "--json",
                 *_argv_for(row, value, tmp_path), *needed]) == 0
    settings = json.loads(capsys.readouterr().out)["report"]["settings"]
    written = row.spec.write(value) if row.spec.write else {row.spec.key or row.name: value}
    assert {k: settings[k] for k in written} == written


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_the_layout_flag_starts_from_a_named_layout(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`--layout NAME` is the named layout (`Layout.preset`), prompt and settings byte for byte."""
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY.decode())
    assert main(["assemble", str(records), "-q", QUESTION, "--as-of", AS_OF, "--json", "--layout", name]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = assemble(RECORDS, QUESTION, as_of=AS_OF, layout=Layout.preset(name), boundary_key=KEY)
    assert out["prompt"] == expected.prompt
    cli_only = {"strict", "boundary_key_given"}  # the command line is strict; its key came from the environment
    assert {k: v for k, v in out["report"]["settings"].items() if k not in cli_only} == \
        {k: v for k, v in expected.report.settings.items() if k not in cli_only}


def test_layout_flags_given_change_the_named_layout_and_nothing_else(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")

    def settings(*argv: str) -> dict[str, Any]:
        assert main(["assemble", str(records), "-q", QUESTION, "--as-of", AS_OF, "--json", *argv]) == 0
        return dict(json.loads(capsys.readouterr().out)["report"]["settings"])

    structured = settings("--layout", "structured")
    assert structured == settings("--conflict-policy", "surface", "--no-answer-form")  # the earlier default
    changed = settings("--layout", "structured", "--conflict-policy", "withhold", "--order", "ranked")
    assert {k for k in changed if changed[k] != structured[k]} == {"conflict_policy", "order"}
    assert settings() == settings("--layout", "default")
    assert main(["assemble", str(records), "-q", QUESTION, "--layout", "flat", "--rule-form"]) == 2  # no blocks
    assert "rule_form" in capsys.readouterr().err


def test_the_boundary_key_comes_from_the_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS[:4]), encoding="utf-8")
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY.decode())
    runs = []
    for _ in range(2):
        assert main(["assemble", str(records), "-q", QUESTION, "--as-of", AS_OF, "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out)["boundary"])
    assert runs[0] == runs[1] == assemble(RECORDS[:4], QUESTION, as_of=AS_OF, boundary_key=KEY).boundary


def test_a_missing_template_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(RECORDS[0]) + "\n", encoding="utf-8")
    assert main(["assemble", str(records), "-q", QUESTION, "--as-of", AS_OF,
                 "--system-template", str(tmp_path / "none.txt")]) == 2
    assert "--system-template" in capsys.readouterr().err


# -- docs/options.md --------------------------------------------------------------------------------------

def test_the_option_reference_is_up_to_date() -> None:
    doc = (ROOT / "docs" / "options.md").read_text("utf-8")
    assert doc == reference_markdown(), "run: PYTHONPATH=src python scripts/options_doc.py"
    for row in option_rows():
        assert f"`{row.spelling}`" in doc


def test_the_docs_name_every_default() -> None:
    for row in option_rows():
        assert row.default is not MISSING or row.name == "as_of"


# -- the type checker catches a misspelt option -------------------------------------------------------------

SNIPPET = '''
from evidencepack import Layout, assemble

assemble([], "q", as_of="2026-06-01", ordr="edges")
assemble([], "q", as_of="2026-06-01", budget=8192)
assemble([], "q", as_of="2026-06-01", layout=Layout(order="edges"))
assemble([], "q", as_of="2026-06-01", order="edges")
'''


def test_mypy_rejects_a_misspelt_option(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    path = tmp_path / "snippet.py"
    path.write_text(SNIPPET, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
                         capture_output=True, text=True, env={"MYPYPATH": str(ROOT / "src"), "PATH": ""},
                         cwd=tmp_path).stdout
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 2, out
    assert 'snippet.py:4: error: Unexpected keyword argument "ordr"' in errors[0]
    assert "snippet.py:5: error:" in errors[1] and '"budget"' in errors[1]


# -- each pass gets its options injected ------------------------------------------------------------------

def test_no_pass_imports_the_options_and_only_fit_and_ledger_the_renderer() -> None:
    from import_graph import graph

    g = graph()
    passes = {m: deps for m, deps in g.items() if m.startswith("evidencepack.passes.")}
    assert not [m for m, deps in passes.items() if "evidencepack.options" in deps]
    renders = {m for m, deps in passes.items() if any(d.startswith("evidencepack.render") for d in deps)}
    # fit drives the renderer (the recount loop renders each attempt) and the ledger counts header segments
    assert renders == {"evidencepack.passes.fit", "evidencepack.passes.ledger"}
