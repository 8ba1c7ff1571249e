"""The held-out IT/security/facilities trap set: its data and the counts its description promises;
`tests/eval/test_older_sets.py` checks them.

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

Its patterns carry no opening verdict and its questions no `yes_no`, so every question counts as open: the set has
no counts by kind, no wrong-opening samples and no bare verdicts. Its unanswerable questions are
`tests/data/unanswerable_it_traps.jsonl`, checked in `tests/eval/test_unanswerable.py`.
"""

from __future__ import annotations

from trap_set_checks import OlderShape, Samples, TopicSet

SET = TopicSet.named("holdout_it", unanswerable=False)
SHAPE = OlderShape(questions=(12, 12), records=(4, 5), gold_seats=3)


# ---------------------------------------------------------------- hand-written answers

# One answer in each rule's words per question, phrased as a model might (not copied from the records): the
# patterns must cover paraphrase, not only the record text.
SAMPLES = {
    "password-rotation": Samples(
        "You don't need to change it on a schedule. Passwords no longer expire; change yours only if the service "
        "desk asks or you think someone knows it. New passwords need at least 14 characters.",
        "You have to change your password every 90 days. You'll get a reminder about a week before it expires, and "
        "the new one must be at least 10 characters."),
    "mfa-sms": Samples(
        "No. SMS and voice-call codes were turned off in June 2025, so you can't receive codes by text. If you "
        "don't want the Authenticator app on your personal phone, you can get a YubiKey from the service desk.",
        "Yes, you can get your codes by text message. When you're asked to choose a method, pick 'Text me a code' "
        "and you'll receive a six-digit code by SMS each time you sign in."),
    "vpn-abroad": Samples(
        "Yes. Portugal is outside the US and Canada, so you must submit a Travel Access request in the IT portal at "
        "least 10 business days before you leave. Without an approved request, VPN sign-ins from there are blocked.",
        "No, you don't need approval. Just email the service desk at least 48 hours before you leave so your logins "
        "aren't flagged as suspicious."),
    "lost-laptop": Samples(
        "Report it now: contact the Security Operations Center within one hour of noticing it's missing, by calling "
        "+1 612 555 0190 or using Report a lost device in the IT portal. They can lock it remotely.",
        "You need to report the loss to your manager within 24 hours. If it was stolen you'll also need a police "
        "report number before IT can give you a replacement."),
    "usb-drives": Samples(
        "No. USB storage devices are blocked on all Halvorsen computers, so you can't copy files to a USB stick. "
        "Share the calibration data through Halvorsen Secure Share instead; the link expires after 30 days.",
        "Yes, as long as the drive is encrypted with BitLocker To Go. You can pick up an encrypted stick from the "
        "service desk and copy the files onto it the night before."),
    "software-install": Samples(
        "Not by yourself. Standard users no longer have local admin rights. If Wireshark is in the Company Portal "
        "app you can install it from there; otherwise submit a Software Request, which takes up to 3 business days.",
        "Yes, you can install it yourself. If the installer asks for admin rights, open the Make Me Admin tool, "
        "which gives you admin for 15 minutes."),
    "confidential-printing": Samples(
        "Not directly. Confidential documents must be printed with Secure Print: send the job to the HI-SecurePrint "
        "queue and release it by tapping your badge at the printer. Unreleased jobs are deleted after 12 hours.",
        "Yes, as long as the printer is in your own department's area and you collect the printout immediately. "
        "Don't use printers in shared corridors or visitor areas."),
    "badge-tailgating": Samples(
        "No. Everyone has to badge in individually, even colleagues you know. She can get a one-day temporary "
        "badge from the front desk by showing photo ID.",
        "Yes, that's fine since you personally recognise her. She just needs to sign the visitor log at reception "
        "before the end of the day."),
    "parking-permit": Samples(
        "An HQ garage permit costs $45 per month, taken from your pay before tax. Permits are issued per calendar "
        "quarter through the Facilities portal.",
        "A permit costs $30 a month, deducted from your pay after tax. You can request one from reception."),
    "desk-booking": Samples(
        "You can book a desk up to 14 days ahead in the Halvorsen Spaces app. Check in by 10:00 on the day or the "
        "booking is released.",
        "Spaces only lets you book up to a week ahead, so set a reminder to book on Monday mornings."),
    "email-retention": Samples(
        "Emails are deleted automatically three years after they were sent or received, unless your mailbox is "
        "under a legal hold or you moved them to a records library.",
        "Emails are kept for seven years and then deleted from all mailboxes and backups."),
    "phishing-report": Samples(
        "Don't click anything in it. Use the Report Phishing button on the Outlook ribbon, which sends it to the "
        "security team. Don't forward it. If you already typed your password, call extension 4357 immediately.",
        "Forward the email as an attachment to phishing@halvorsen.example, then delete it from your inbox."),
}

# Other answer shapes: none written for this set.
SHAPES: list[tuple[str, str, str]] = []
