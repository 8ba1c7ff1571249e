"""The held-out IT/security/facilities trap set: is it well formed, and do its patterns tell the rules apart?

`tests/data/holdout_it_corpus.jsonl` is the intranet of a fictional instrument maker, Halvorsen Instruments:
information-security standards, service-desk knowledge-base articles, facilities pages, an old handbook, and
Teams and email posts. `tests/data/holdout_it_traps.jsonl` holds 12 questions as employees would ask them
(password expiry, SMS codes for MFA, VPN abroad, a lost laptop, USB sticks, installing software, printing
confidential files, tailgating, parking, desk booking, email retention, phishing). Each names 4-5 records: one
current authoritative answer, 1-2 stale ones on the same topic (superseded versions, informal posts, expired or
still "valid" by date) that give a different concrete rule, and 1-2 records on other topics. The set exists so
that prompt layouts chosen on the bundled HR set can be checked on a domain they were not tuned on; it was
written without reading the prompt wording being tested (render/guidance.py, conflicts.py, docs/variants.md,
docs/evaluation.md). Run it with `evidencepack eval traps --traps tests/data/holdout_it_traps.jsonl --corpus
tests/data/holdout_it_corpus.jsonl ...`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from evidencepack import assemble
from evidencepack.eval.datasets import TrapQuestion, load_traps
from evidencepack.eval.judge import judge
from evidencepack.records.jsonl import load_jsonl
from evidencepack.records.record import Record
from trap_set_checks import check_judge_reads_records, check_patterns_separate
from trap_set_checks import day as _day

DATA = Path(__file__).parents[1] / "data"
CORPUS = load_jsonl(DATA / "holdout_it_corpus.jsonl")
BY_ID = {r.id: r for r in CORPUS}
TRAPS = load_traps(DATA / "holdout_it_traps.jsonl", corpus=CORPUS)
IDS = [t.id for t in TRAPS]


def _current_at(r: Record, as_of: str) -> bool:
    """Authoritative and in force at `as_of`."""
    day = date.fromisoformat(as_of)
    start, end = _day(r.valid_from), _day(r.valid_until)
    return (r.authority == "authoritative" and (start is None or start <= day)  # type: ignore[operator]
            and (end is None or day <= end))  # type: ignore[operator]


def _roles(t: TrapQuestion) -> tuple[Record, list[Record], list[Record]]:
    """(current record, stale records, distractors) of a question, by its gold record's topic."""
    gold = BY_ID[t.gold or ""]
    recs = [BY_ID[i] for i in t.records]
    stale = [r for r in recs if r.topic == gold.topic and r is not gold]
    others = [r for r in recs if r.topic != gold.topic]
    return gold, stale, others


def test_set_shape() -> None:
    assert len(TRAPS) == 12 and len(set(IDS)) == 12
    assert all(t.as_of.startswith("2026-") for t in TRAPS)
    # the current record is not always in the same seat
    seats = {t.records.index(t.gold or "") for t in TRAPS}
    assert len(seats) >= 3
    # all three kinds of stale source appear, and informal posts both expired and still "valid" by date
    kinds = set()
    for t in TRAPS:
        for r in _roles(t)[1]:
            end = _day(r.valid_until)
            expired = end is not None and end < date.fromisoformat(t.as_of)  # type: ignore[operator]
            kinds.add((r.authority, expired))
    assert {("superseded", True), ("informal", True), ("informal", False)} <= kinds


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_question_records_have_the_intended_roles(t: TrapQuestion) -> None:
    assert 4 <= len(t.records) <= 5
    gold, stale, others = _roles(t)
    assert t.gold is not None and t.trap in {r.id for r in stale}
    topic = [BY_ID[i] for i in t.records if BY_ID[i].topic == gold.topic]
    assert [r.id for r in topic if _current_at(r, t.as_of)] == [gold.id]
    assert all(r.authority in ("superseded", "informal") for r in stale)
    assert 1 <= len(stale) <= 2 and 1 <= len(others) <= 2
    # distractors are on other topics and none of them is a stale source for this question
    assert len({r.topic for r in others}) == len(others)


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_patterns_separate_current_from_stale_text(t: TrapQuestion) -> None:
    check_patterns_separate(t, *_roles(t))


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_judge_reads_each_record_as_its_own_rule(t: TrapQuestion) -> None:
    """Quoted as an answer on its own, the current record is judged current and each stale record stale."""
    gold, stale, _ = _roles(t)
    check_judge_reads_records(t, gold, stale)


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_assembly_reports_the_conflict(t: TrapQuestion) -> None:
    gold, _, _ = _roles(t)
    a = assemble([BY_ID[i] for i in t.records], t.question, as_of=t.as_of)
    assert a.report.conflicts, f"{t.id}: no conflict group"
    assert gold.topic in {c.topic for c in a.report.conflicts}


# One answer in each rule's words per question, phrased as a model might (not copied from the records): the
# patterns must cover paraphrase, not only the record text.
PARAPHRASES = {
    "password-rotation": (
        "You don't need to change it on a schedule. Passwords no longer expire; change yours only if the service "
        "desk asks or you think someone knows it. New passwords need at least 14 characters.",
        "You have to change your password every 90 days. You'll get a reminder about a week before it expires, and "
        "the new one must be at least 10 characters."),
    "mfa-sms": (
        "No. SMS and voice-call codes were turned off in June 2025, so you can't receive codes by text. If you "
        "don't want the Authenticator app on your personal phone, you can get a YubiKey from the service desk.",
        "Yes, you can get your codes by text message. When you're asked to choose a method, pick 'Text me a code' "
        "and you'll receive a six-digit code by SMS each time you sign in."),
    "vpn-abroad": (
        "Yes. Portugal is outside the US and Canada, so you must submit a Travel Access request in the IT portal at "
        "least 10 business days before you leave. Without an approved request, VPN sign-ins from there are blocked.",
        "No, you don't need approval. Just email the service desk at least 48 hours before you leave so your logins "
        "aren't flagged as suspicious."),
    "lost-laptop": (
        "Report it now: contact the Security Operations Center within one hour of noticing it's missing, by calling "
        "+1 612 555 0190 or using Report a lost device in the IT portal. They can lock it remotely.",
        "You need to report the loss to your manager within 24 hours. If it was stolen you'll also need a police "
        "report number before IT can give you a replacement."),
    "usb-drives": (
        "No. USB storage devices are blocked on all Halvorsen computers, so you can't copy files to a USB stick. "
        "Share the calibration data through Halvorsen Secure Share instead; the link expires after 30 days.",
        "Yes, as long as the drive is encrypted with BitLocker To Go. You can pick up an encrypted stick from the "
        "service desk and copy the files onto it the night before."),
    "software-install": (
        "Not by yourself. Standard users no longer have local admin rights. If Wireshark is in the Company Portal "
        "app you can install it from there; otherwise submit a Software Request, which takes up to 3 business days.",
        "Yes, you can install it yourself. If the installer asks for admin rights, open the Make Me Admin tool, "
        "which gives you admin for 15 minutes."),
    "confidential-printing": (
        "Not directly. Confidential documents must be printed with Secure Print: send the job to the HI-SecurePrint "
        "queue and release it by tapping your badge at the printer. Unreleased jobs are deleted after 12 hours.",
        "Yes, as long as the printer is in your own department's area and you collect the printout immediately. "
        "Don't use printers in shared corridors or visitor areas."),
    "badge-tailgating": (
        "No. Everyone has to badge in individually, even colleagues you know. She can get a one-day temporary "
        "badge from the front desk by showing photo ID.",
        "Yes, that's fine since you personally recognise her. She just needs to sign the visitor log at reception "
        "before the end of the day."),
    "parking-permit": (
        "An HQ garage permit costs $45 per month, taken from your pay before tax. Permits are issued per calendar "
        "quarter through the Facilities portal.",
        "A permit costs $30 a month, deducted from your pay after tax. You can request one from reception."),
    "desk-booking": (
        "You can book a desk up to 14 days ahead in the Halvorsen Spaces app. Check in by 10:00 on the day or the "
        "booking is released.",
        "Spaces only lets you book up to a week ahead, so set a reminder to book on Monday mornings."),
    "email-retention": (
        "Emails are deleted automatically three years after they were sent or received, unless your mailbox is "
        "under a legal hold or you moved them to a records library.",
        "Emails are kept for seven years and then deleted from all mailboxes and backups."),
    "phishing-report": (
        "Don't click anything in it. Use the Report Phishing button on the Outlook ribbon, which sends it to the "
        "security team. Don't forward it. If you already typed your password, call extension 4357 immediately.",
        "Forward the email as an attachment to phishing@halvorsen.example, then delete it from your inbox."),
}


def test_every_question_has_paraphrases() -> None:
    assert set(PARAPHRASES) == set(IDS)


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_judge_reads_paraphrases(t: TrapQuestion) -> None:
    current, stale = PARAPHRASES[t.id]
    assert judge(current, t).verdict == "current"
    assert judge(stale, t).verdict == "stale"
