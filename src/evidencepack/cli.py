"""The `evidencepack` command line: thin argument parsing around the library.

User mistakes (bad records, unknown options, unreadable files) print one line to stderr and exit 2, with
no traceback. Today's date is read here, once, when `--as-of` is not given; the library never reads a clock.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__, safejson
from .assemble import assemble
from .errors import EvidencepackError
from .errors import UsageError as UsageError  # re-exported from its old home
from .options import NOTICE_PLACEMENTS, NOTICE_STYLES
from .passes.budget import Budget
from .passes.order import STRATEGIES
from .records.jsonl import Line, read_jsonl_bytes
from .records.record import SENSITIVITIES
from .render import FORMATS, MARKINGS, PROFILES
from .render.prompts import ABSTAIN_RULES, CONFLICT_RULES
from .report import report_table
from .seal import verify_env

if TYPE_CHECKING:
    from .citations import ConflictNote, SourceIndex, Verdict
    from .citations.severities import Severities


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr (with where to look), not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_assembly_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--as-of", help="date at which validity is judged (YYYY-MM-DD; default: today)")
    p.add_argument("--window", type=int, default=8192, help="context window in tokens (default 8192)")
    p.add_argument("--output-reserve", type=int, default=1024, help="tokens kept for the answer (default 1024)")
    p.add_argument("--safety-margin", type=int, default=128, help="tokens kept for drift (default 128)")
    p.add_argument("--max-records", type=int, help="include at most this many records")
    p.add_argument("--fill-gaps", action="store_true", help="let smaller lower-ranked records use room left")
    p.add_argument("--order", choices=STRATEGIES, default="edges-authority",
                   help="seating of records (default edges-authority: edges, with the current authoritative "
                        "record of a conflict group on the best edge)")
    p.add_argument("--format", choices=FORMATS, default="compact",
                   help="block format (default compact: the text block with the header on the BEGIN line)")
    p.add_argument("--profile", default="policy",
                   help=f"header fields: {', '.join(PROFILES)}, or a comma-separated list (default policy)")
    p.add_argument("--clearance", choices=SENSITIVITIES, default="internal",
                   help="highest sensitivity the caller may see (default internal)")
    p.add_argument("--tokenizer", default=None,
                   help="o200k_base (default), cl100k_base, a model name such as gpt-4o, or a tokenizer.json")
    p.add_argument("--model", default=None,
                   help="the target model, counted exactly with its tokenizer and chat framing: an OpenAI model "
                        "name (gpt-4o, gpt-4.1-mini, …), a .gguf file, or a Hugging Face model directory or "
                        "tokenizer.json")
    p.add_argument("--exclude-expired", action="store_true", help="drop expired records instead of labelling")
    p.add_argument("--exclude-superseded", action="store_true", help="drop records whose authority is superseded")
    p.add_argument("--conflict-policy", choices=tuple(CONFLICT_RULES), default="surface")
    p.add_argument("--no-notice", action="store_true", help="do not put a conflict notice above the sources")
    p.add_argument("--notice-placement", choices=NOTICE_PLACEMENTS, default="sources",
                   help="conflict notice above the sources (default) or after them, by the question")
    p.add_argument("--notice-style", choices=NOTICE_STYLES, default="facts",
                   help="facts: the metadata facts only (default); directive: also what to do with them")
    p.add_argument("--abstain", choices=tuple(ABSTAIN_RULES), default="last-resort",
                   help="when the model may say it does not know (default last-resort: only if no source "
                        "answers, else give the current authoritative answer; if-unanswered: the original line)")
    p.add_argument("--reminder", action="store_true", help="restate the instructions after the question")
    p.add_argument("--scaffold", action="store_true",
                   help="ask for an answer form: the answer with handles, then a line naming conflicts")
    p.add_argument("--conflict-form", action="store_true",
                   help="put the conflict groups in an answer form after the question (instead of the notice "
                        "above the sources): the answer with handles, then a line per group to fill in with what "
                        "the weak sources say")
    p.add_argument("--example", action="store_true",
                   help="add a worked example of a cited, conflict-naming answer to the system prompt")
    p.add_argument("--marking", choices=MARKINGS, default="none", help="spotlighting datamarking of record text")
    p.add_argument("--injection-threshold", type=float,
                   help="drop records whose injection score is above this (0-1); default: score only")
    p.add_argument("--lazy", action="store_true",
                   help="validate only the records the budget reaches (the library default); without it every "
                        "record is validated first and a malformed one anywhere is an error")
    p.add_argument("--on-invalid", choices=("raise", "drop"), default="raise",
                   help="drop: report a malformed or repeated record instead of failing (default raise)")


def _profile(value: str) -> str | list[str]:
    """A profile name, or a comma-separated list of fields (`doc,` for a list of one)."""
    if value in PROFILES:
        return value
    if "," not in value:
        raise UsageError(f"unknown profile {value!r} (one of {', '.join(PROFILES)}, or fields separated by "
                         "commas; end a single field with a comma: 'doc,')")
    return [f.strip() for f in value.split(",") if f.strip()]


def _as_of(value: str | None) -> object:
    if value is None:
        return datetime.now().astimezone().date()  # the one clock read: the CLI's default for --as-of
    if not value.strip():
        raise UsageError("--as-of is empty (give a date such as 2026-06-01, or leave it out for today)")
    return value


def _assembly_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return dict(
        as_of=_as_of(args.as_of), profile=_profile(args.profile), strict=not args.lazy, on_invalid=args.on_invalid,
        budget=Budget(context_window=args.window, output_reserve=args.output_reserve,
                      safety_margin=args.safety_margin, max_records=args.max_records, fill_gaps=args.fill_gaps),
        tokenizer=args.tokenizer, model=args.model, order=args.order, format=args.format,
        clearance=args.clearance, exclude_expired=args.exclude_expired,
        exclude_superseded=args.exclude_superseded, conflict_policy=args.conflict_policy,
        conflict_notice=not args.no_notice, marking=args.marking, injection_threshold=args.injection_threshold,
        notice_placement=args.notice_placement, notice_style=args.notice_style, abstain=args.abstain,
        reminder=args.reminder, scaffold=args.scaffold, example=args.example,
        conflict_form=args.conflict_form,
    )


def _read_records(path: str) -> list[Line]:
    """JSON objects with their line numbers; the records are validated by `assemble`."""
    if path == "-":
        return read_jsonl_bytes(sys.stdin.buffer.read())
    if not Path(path).is_file():
        raise UsageError(f"records file not found: {path}")
    return read_jsonl_bytes(Path(path).read_bytes())


def cmd_assemble(args: argparse.Namespace) -> int:
    records = _read_records(args.records)
    result = assemble(records, args.question, **_assembly_kwargs(args))
    if args.model is None:  # said once: the count is a guess for whichever model reads the prompt
        print(f"evidencepack: note: {result.report.budget['count_note'].replace('model=', '--model')}",
              file=sys.stderr)
    if args.html:
        from .inspector.page import write_inspector

        write_inspector(args.html, result)
    if args.json:
        print(result.to_json(indent=2 if args.pretty else None))
    else:
        print(result.prompt)
        if args.report:
            print(file=sys.stderr)
            print(report_table(result), file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .data.demo import demo_records, run_demo

    if args.records:
        for record in demo_records()[0]:
            print(json.dumps(record.to_dict(), ensure_ascii=False))
        return 0
    print(run_demo(as_of=args.as_of))
    return 0


DESCRIPTION = ("Compile retrieved records into the prompt an LLM reads (budgeted, deduplicated, ordered,\n"
               "with provenance), and check the citations in its answer.")
EXAMPLES = {
    "evidencepack": """examples:
  evidencepack demo
  evidencepack assemble records.jsonl -q "Does unused PTO carry over?" --as-of 2026-06-01 --json > assembly.json
  evidencepack validate assembly.json answer.txt --resolve footnotes""",
    "assemble": """examples:
  evidencepack assemble records.jsonl -q "Does unused PTO carry over?" --as-of 2026-06-01
  evidencepack assemble records.jsonl -q "…" --json --pretty > assembly.json
  my-retriever "…" | evidencepack assemble - -q "…" --window 4096 --report""",
    "demo": """examples:
  evidencepack demo
  evidencepack demo --records > demo.jsonl""",
    "validate": """examples:
  evidencepack validate assembly.json answer.txt --resolve footnotes
  my-llm < prompt.txt | evidencepack validate assembly.json - --json
  evidencepack assemble r.jsonl -q "…" --json | evidencepack validate - answer.txt
  evidencepack validate assembly.json answer.txt --attribute --unsupported-value error
  evidencepack validate assembly.json answer.txt --attribute --notes

--attribute: a stating sentence without a valid citation is given the sources its content words and values
match (marked "attributed", never counted as written); stale-only support and values are checked on it too.""",
    "inspect": """examples:
  evidencepack inspect assembly.json -o page.html
  evidencepack inspect assembly.json answer.txt -o page.html""",
}


def _add_severity_options(p: argparse.ArgumentParser) -> None:
    """One `--KIND off|warn|error` flag per finding kind, generated from `citations.Severities`: a new kind
    adds its flag by itself, and `validate` and `inspect` always offer the same ones."""
    from .citations.severities import LEVELS, Severities

    defaults = Severities()
    for kind in Severities.kinds():
        p.add_argument(f"--{kind.replace('_', '-')}", choices=LEVELS, default=defaults[kind], dest=kind,
                       help=f"how to treat {Severities.describe(kind)} (default {defaults[kind]})")


def _severities(args: argparse.Namespace) -> Severities:
    """The `Severities` the flags of `_add_severity_options` give."""
    from .citations.severities import Severities

    return Severities.from_mapping({kind: getattr(args, kind) for kind in Severities.kinds()})


def _sub(sub: argparse._SubParsersAction[Parser], name: str, **kwargs: Any) -> argparse.ArgumentParser:
    return sub.add_parser(name, epilog=EXAMPLES[name], formatter_class=argparse.RawDescriptionHelpFormatter,
                          **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="evidencepack", description=DESCRIPTION, epilog=EXAMPLES["evidencepack"],
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"evidencepack {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = _sub(sub, "assemble", help="compile ranked records (JSONL) into a prompt")
    p.add_argument("records", help="JSONL file of records, one per line ('-' for stdin)")
    p.add_argument("--question", "-q", required=True, help="the user's question")
    _add_assembly_options(p)
    p.add_argument("--json", action="store_true", help="print {prompt, messages, manifest, report} as JSON")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.add_argument("--report", action="store_true", help="also print the report table to stderr")
    p.add_argument("--html", metavar="PAGE", help="also write the inspector page (HTML) of this assembly")
    p.set_defaults(func=cmd_assemble)

    p = _sub(sub, "demo", help="run the assembler on the bundled HR policy corpus")
    p.add_argument("--as-of", default="2026-06-01", help="date at which validity is judged (default 2026-06-01)")
    p.add_argument("--records", action="store_true", help="print the demo's retrieved records as JSONL instead")
    p.set_defaults(func=cmd_demo)

    p = _sub(sub, "validate", help="check an answer's citations against an assembly "
                                    "(exit 0 valid, 1 not, 2 bad input)")
    p.add_argument("assembly", help="the JSON that `evidencepack assemble --json` printed ('-' for stdin)")
    p.add_argument("answer", help="the model's answer as a text file ('-' for stdin)")
    _add_severity_options(p)
    p.add_argument("--attribute", action="store_true",
                   help="give each uncited stating sentence the sources its content matches, and check them too")
    p.add_argument("--notes", action="store_true",
                   help="also give a conflict note for each conflict group the answer rests on, and the record ids "
                        "to withhold from a retry (with --attribute, uncited answers count too)")
    p.add_argument("--resolve", choices=("links", "footnotes"), help="also print the answer with citations resolved")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=cmd_validate)

    p = _sub(sub, "inspect", help="write an HTML page showing what the model saw (and, given an answer, "
                                   "each sentence's citation findings)")
    p.add_argument("assembly", help="the JSON that `evidencepack assemble --json` printed")
    p.add_argument("answer", nargs="?", help="optional: the model's answer as a text file ('-' for stdin)")
    p.add_argument("-o", "--output", default="-", help="the page to write (default: stdout)")
    _add_severity_options(p)
    p.add_argument("--attribute", action="store_true",
                   help="give each uncited stating sentence the sources its content matches (shown as attributed)")
    p.set_defaults(func=cmd_inspect)

    from .eval.cli import add_parser as add_eval_parser

    add_eval_parser(sub)
    return parser


def _read_validate_inputs(args: argparse.Namespace) -> tuple[SourceIndex, str]:
    """The assembly (checked: `AssemblyFormatError`, exit 2, on anything malformed) and the answer."""
    from .citations import read_assembly

    if args.assembly == "-" and args.answer == "-":
        raise UsageError("only one of the assembly and the answer can be read from stdin ('-')")
    name = "stdin" if args.assembly == "-" else args.assembly
    raw = sys.stdin.read() if args.assembly == "-" else Path(args.assembly).read_text("utf-8")
    data = safejson.loads(raw, name=name, error=UsageError)  # depth-limited: exit 2, never a traceback
    assembly = read_assembly(verify_env(data))  # AssemblyFormatError (exit 2): malformed, tampered, bad seal
    answer = sys.stdin.read() if args.answer == "-" else Path(args.answer).read_text("utf-8")
    return assembly, answer


def cmd_validate(args: argparse.Namespace) -> int:
    from .citations import conflict_notes, validate_citations

    assembly, answer = _read_validate_inputs(args)
    verdict = validate_citations(answer, assembly, severities=_severities(args), attribute=args.attribute)
    notes = conflict_notes(answer, assembly, verdict=verdict) if args.notes else ()
    if args.json:
        _print_verdict_json(args, answer, assembly, verdict, notes)
    else:
        _print_verdict_text(args, answer, assembly, verdict, notes)
    return 0 if verdict.valid else 1


def _print_verdict_json(args: argparse.Namespace, answer: str, assembly: SourceIndex, verdict: Verdict,
                        notes: Sequence[ConflictNote]) -> None:
    from .citations import resolve, withhold

    out = verdict.to_dict()
    if args.notes:
        out["conflict_notes"] = [n.to_dict() for n in notes]
        out["withhold"] = list(withhold(verdict, assembly))
    if args.resolve:
        out["resolved"] = resolve(answer, assembly, style=args.resolve, attribute=args.attribute)
    print(json.dumps(out, ensure_ascii=False, indent=2))


def _print_verdict_text(args: argparse.Namespace, answer: str, assembly: SourceIndex, verdict: Verdict,
                        notes: Sequence[ConflictNote]) -> None:
    from .citations import resolve

    attributed = (f", attributed coverage {verdict.attributed_coverage:.0%}"
                  if verdict.attributed_coverage is not None else "")
    print("valid" if verdict.valid else "INVALID", f"(coverage {verdict.coverage:.0%}{attributed}, "
          f"{len(verdict.citations)} citations, cited: {', '.join(verdict.cited_ids) or 'none'}"
          + (f"; attributed: {', '.join(verdict.attributed_ids) or 'none'})" if args.attribute else ")"))
    for f in verdict.findings:
        print(f"  {f.severity:5}  {f.kind:17}  {f.message}: {answer[f.start:f.end].strip()[:80]!r}")
    if args.attribute:
        _print_support(verdict)
    if args.notes:
        _print_notes(verdict, assembly, notes)
    if args.resolve:
        print()
        print(resolve(answer, assembly, style=args.resolve, attribute=args.attribute))


def _print_support(verdict: Verdict) -> None:
    print("support (written: the model cited it; attributed: matched by content):")
    for s in verdict.support:
        how = "written   " if s.written else "attributed" if s.handles else "none      "
        rests = ", ".join(f"{h} ({i})" for h, i in zip(s.handles, s.record_ids)) or "-"
        print(f"  sentence {s.sentence + 1:<3} {how}  {rests}")


def _print_notes(verdict: Verdict, assembly: SourceIndex, notes: Sequence[ConflictNote]) -> None:
    from .citations import withhold

    held = withhold(verdict, assembly)
    print("conflict notes:" if notes else "conflict notes: none (the answer rests on no conflict group)")
    for n in notes:
        print(f"  Note: {n.text}")
    if held:
        print(f"withhold from a retry: {', '.join(held)}")


def cmd_inspect(args: argparse.Namespace) -> int:
    from .inspector.page import inspector_html, load_assembly

    answer = None
    if args.answer is not None:
        answer = sys.stdin.read() if args.answer == "-" else Path(args.answer).read_text("utf-8")
    page = inspector_html(load_assembly(args.assembly), answer, severities=_severities(args),
                          attribute=args.attribute)
    if args.output == "-":
        sys.stdout.write(page)
    else:
        Path(args.output).write_text(page, encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
        return code
    except BrokenPipeError:
        # The reader stopped early (`| head`): that is not an error. Point stdout at /dev/null so the
        # interpreter's last flush does not report the closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (EvidencepackError, ValueError, OSError) as err:
        print(f"evidencepack: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
