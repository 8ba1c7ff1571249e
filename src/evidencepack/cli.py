"""The `evidencepack` command line: thin argument parsing around the library.

User mistakes (bad records, unknown options, unreadable files) print one line to stderr and exit 2, with
no traceback. Today's date is read here, once, when `--as-of` is not given; the library never reads a clock.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import MISSING, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__, safejson
from .assemble import assemble
from .errors import EvidencepackError
from .errors import UsageError as UsageError  # re-exported from its old home
from .options import GROUPS, LAYOUTS, OptionRow, option_rows
from .optspec import SAME
from .records.jsonl import Line, read_jsonl_bytes
from .render import PROFILES
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
    """One flag per assembly option, generated from the option fields' metadata (`options.option_rows`), and
    `--layout`, the named layout the layout flags start from."""
    p.add_argument("--layout", choices=tuple(LAYOUTS), default="default", metavar="NAME",
                   help="start from a named layout; the layout flags given change it (one of "
                        f"{', '.join(LAYOUTS)}; default: default)")
    for row in option_rows():
        _add_option(p, row)


def _dest(row: OptionRow) -> str:
    return f"opt_{row.group}_{row.name}" if row.group else row.name


def _add_option(p: argparse.ArgumentParser, row: OptionRow) -> None:
    spec, dest = row.spec, _dest(row)
    default = row.default if spec.cli_default is SAME else spec.cli_default
    # a layout flag left out is not in the parsed arguments at all: its value comes from `--layout`
    kept = argparse.SUPPRESS if row.group == "layout" else default
    shown = "" if default is None or default is MISSING or spec.cli in ("switch", "negate", "consts") \
        else f" (default {getattr(default, 'name', default)})"
    if spec.cli == "env":
        return  # a secret: only from the environment, never argv
    if spec.cli == "consts":
        group = p.add_mutually_exclusive_group()
        for flag, value, help_ in spec.consts:
            group.add_argument(flag, dest=dest, action="store_const", const=value, help=help_, default=kept)
        return
    flag, help_ = spec.flag_name(row.name), (spec.flag_help or spec.help) + shown
    if spec.cli in ("switch", "negate"):
        p.add_argument(flag, dest=dest, action="store_true" if spec.cli == "switch" else "store_false",
                       default=kept, help=help_)
        return
    if spec.cli == "special":  # --as-of: no default here, today's date is read when it is left out
        p.add_argument(flag, dest=dest, help=help_)
        return
    choices = tuple(spec.choices()) if spec.choices else None
    metavar = "FILE" if spec.cli == "file" else None if choices else row.name.upper()
    p.add_argument(flag, dest=dest, type=spec.parse or str, choices=choices,
                   default=kept if row.group else None, metavar=metavar, help=help_)


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


def _cli_value(row: OptionRow, value: Any) -> Any:
    if row.spec.cli == "profile" and isinstance(value, str):
        return _profile(value)
    if row.spec.cli == "file" and value is not None:
        return read_text_file(value, f"{row.spec.flag_name(row.name)} file")
    return value


# -- file errors read the same way in every command (issue 26, item 7) --------------------------------------


def file_error(err: OSError | UnicodeDecodeError, path: str | Path, role: str = "file") -> UsageError:
    """One wording for every file a command reads or writes: '<role> not found: <path>' and its kin, never
    a raw '[Errno 2] ...'."""
    if isinstance(err, UnicodeDecodeError):
        return UsageError(f"{role} is not UTF-8 text: {path}")
    if isinstance(err, FileNotFoundError):
        return UsageError(f"{role} not found: {path}")
    if isinstance(err, IsADirectoryError):
        return UsageError(f"{role} is a directory, not a file: {path}")
    if isinstance(err, PermissionError):
        return UsageError(f"{role} cannot be opened (permission denied): {path}")
    return UsageError(f"{role} cannot be read: {path} ({err.strerror or type(err).__name__})")


def read_text_file(path: str | Path, role: str) -> str:
    """A text file a command reads, or a `UsageError` worded by `file_error`."""
    try:
        return Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise file_error(err, path, role) from None


def _read_input(path: str, role: str) -> str:
    """A text input: stdin for '-', else the file."""
    return sys.stdin.read() if path == "-" else read_text_file(path, role)


def _assembly_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """`assemble` keyword arguments from the parsed flags: each group built from its fields' flags, the layout
    from the named layout (`--layout`) with the layout flags given."""
    groups: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for row in option_rows():
        if row.spec.cli == "env" or not hasattr(args, _dest(row)):
            continue
        value = _cli_value(row, getattr(args, _dest(row)))
        (groups.setdefault(row.group, {}) if row.group else top)[row.name] = value
    top["as_of"] = _as_of(top.get("as_of"))
    return {**top, **{name: cls(**groups.get(name, {})) for name, cls in GROUPS if name != "layout"},
            "layout": replace(LAYOUTS[args.layout], **groups.get("layout", {}))}


def _read_records(path: str) -> list[Line]:
    """JSON objects with their line numbers; the records are validated by `assemble`."""
    if path == "-":
        return read_jsonl_bytes(sys.stdin.buffer.read())
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise file_error(err, path, "records file") from None
    return read_jsonl_bytes(data)


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
  evidencepack assemble records.jsonl -q "…" --layout structured --order ranked
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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser. Given the `command` about to run, the other commands' flags that cost an import (the
    severity flags import the citation checker, `eval` the evaluation harness) are left out: a fresh
    `assemble` process would otherwise spend a fifth of its start-up on them."""

    def severity_flags(name: str) -> Callable[[argparse.ArgumentParser], None]:
        return _add_severity_options if command is None or command == name else lambda p: None
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
    severity_flags("validate")(p)
    p.add_argument("--attribute", action="store_true",
                   help="give each uncited stating sentence the sources its content matches, and check them too")
    p.add_argument("--notes", action="store_true",
                   help="also give a conflict note for each conflict group the answer rests on, a note for a value the "
                        "sources give only for something else, and the record ids to withhold from a retry (with "
                        "--attribute, uncited answers count too)")
    p.add_argument("--resolve", choices=("links", "footnotes"), help="also print the answer with citations resolved")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=cmd_validate)

    p = _sub(sub, "inspect", help="write an HTML page showing what the model saw (and, given an answer, "
                                   "each sentence's citation findings)")
    p.add_argument("assembly", help="the JSON that `evidencepack assemble --json` printed")
    p.add_argument("answer", nargs="?", help="optional: the model's answer as a text file ('-' for stdin)")
    p.add_argument("-o", "--output", default="-", help="the page to write (default: stdout)")
    severity_flags("inspect")(p)
    p.add_argument("--attribute", action="store_true",
                   help="give each uncited stating sentence the sources its content matches (shown as attributed)")
    p.set_defaults(func=cmd_inspect)

    from .batch.cli import add_parsers as add_batch_parsers

    add_batch_parsers(sub, assembly_flags=_add_assembly_options, assembly_kwargs=_assembly_kwargs,
                      severity_flags=severity_flags("batch-check"), severities=_severities)  # batch/cli.py
    if command is None or command == "eval" or command not in sub.choices:
        from .eval.cli import add_parser as add_eval_parser

        add_eval_parser(sub)
    else:
        sub.add_parser("eval", help="(stub: the real parser is built when `eval` runs)")
    return parser


def _read_validate_inputs(args: argparse.Namespace) -> tuple[SourceIndex, str]:
    """The assembly (checked: `AssemblyFormatError`, exit 2, on anything malformed) and the answer."""
    from .citations import read_assembly

    if args.assembly == "-" and args.answer == "-":
        raise UsageError("only one of the assembly and the answer can be read from stdin ('-')")
    name = "stdin" if args.assembly == "-" else args.assembly
    raw = _read_input(args.assembly, "assembly file")
    data = safejson.loads(raw, name=name, error=UsageError)  # depth-limited: exit 2, never a traceback
    assembly = read_assembly(verify_env(data))  # AssemblyFormatError (exit 2): malformed, tampered, bad seal
    answer = _read_input(args.answer, "answer file")
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
    from .citations import injection_note, resolve, transplant_note, verdict_note, withhold

    out = verdict.to_dict()
    if args.notes:
        out["conflict_notes"] = [n.to_dict() for n in notes]
        out["withhold"] = list(withhold(verdict, assembly))
        out["value_note"] = transplant_note(answer, assembly, verdict)
        out["verdict_note"] = verdict_note(answer, assembly, verdict)
        out["injection_note"] = injection_note(answer, assembly, verdict)
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
        _print_notes(answer, verdict, assembly, notes)
    if args.resolve:
        print()
        print(resolve(answer, assembly, style=args.resolve, attribute=args.attribute))


def _print_support(verdict: Verdict) -> None:
    print("support (written: the model cited it; attributed: matched by content):")
    for s in verdict.support:
        how = "written   " if s.written else "attributed" if s.handles else "none      "
        rests = ", ".join(f"{h} ({i})" for h, i in zip(s.handles, s.record_ids)) or "-"
        print(f"  sentence {s.sentence + 1:<3} {how}  {rests}")


def _print_notes(answer: str, verdict: Verdict, assembly: SourceIndex, notes: Sequence[ConflictNote]) -> None:
    from .citations import injection_note, transplant_note, verdict_note, withhold

    held = withhold(verdict, assembly)
    print("conflict notes:" if notes else "conflict notes: none (the answer rests on no conflict group)")
    for n in notes:
        print(f"  Note: {n.text}")
    for note in (transplant_note(answer, assembly, verdict), verdict_note(answer, assembly, verdict),
                 injection_note(answer, assembly, verdict)):
        if note:
            print(f"  Note: {note}")
    if held:
        print(f"withhold from a retry: {', '.join(held)}")


def cmd_inspect(args: argparse.Namespace) -> int:
    from .inspector.page import inspector_html, load_assembly

    answer = None
    if args.answer is not None:
        answer = _read_input(args.answer, "answer file")
    try:
        loaded = load_assembly(args.assembly)
    except (OSError, UnicodeDecodeError) as err:
        raise file_error(err, args.assembly, "assembly file") from None
    page = inspector_html(loaded, answer, severities=_severities(args),
                          attribute=args.attribute)
    if args.output == "-":
        sys.stdout.write(page)
    else:
        try:
            Path(args.output).write_text(page, encoding="utf-8")
        except OSError as err:
            raise file_error(err, args.output, "output file") from None
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
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
    except (EvidencepackError, OSError) as err:
        if isinstance(err, OSError) and err.filename is not None:  # a file no command named: the same wording
            err = file_error(err, err.filename)
        print(f"evidencepack: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
