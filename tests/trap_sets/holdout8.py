"""The eighth trap set (the staff intranet of a secondary school): its data and the counts its description promises;
`tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout8_corpus.jsonl` is the intranet of a fictional 11-18 secondary school, Ashcombe Park School in
Ridleigh, as its staff see it: teachers and form tutors, teaching assistants, trip leaders, exam invigilators and the
exams officer, the school office and reception, first aiders, the site team and caretakers, IT and catering. It holds
the safeguarding and child protection policy, the educational visits policy, the examinations policy, the first aid
and medicines policy, the site safety procedures, the IT and acceptable use policy, the data protection policy, the
attendance, behaviour and food and allergy policies and the staff handbook, older versions of some of them, and
emails, Teams posts, wiki notes, staffroom noticeboard notices and the site team's log book. 50 records: 20 current
authoritative rules, 9 superseded versions, 13 informal records (11 that never expire, 2 with a `valid_until` in
the past) and 8 authoritative records on neighbouring subjects.

`tests/data/holdout8_traps.jsonl` holds 20 questions as staff would ask them: 8 yes/no questions answered "no" today
(driving a Year 10 home from training because his mum rang to say it's fine, photos of a Year 8 trip on a teacher's
own phone, paracetamol for a Year 9 with no consent form on file, a candidate going to the toilet on his own 80
minutes into a GCSE paper, texting the cover supervisor a login, 28 Year 7s on a castle trip with 2 adults, writing
up a disclosure on SafeLog the next morning, floor stripper poured into a water bottle), 8 answered "yes" where the
stale record says no or something stricter (a TA who is not a first aider giving an EpiPen, a Year 12 going to a
café in a free period, taking a period 6 PPA at home, a candidate 40 minutes late for a GCSE paper, a form selling
cupcakes baked at home, a dad without a DBS helping at chess club, coursework marks on an encrypted school USB stick,
a 23-year-old driving the minibus) and 4 open ones (how far ahead residential paperwork goes to the EVC, the notice
parents get for an after-school detention, a clash of heads in netball, a spreadsheet emailed to the wrong parent).
Each names 3-5 records in retrieval rank order: the current authoritative rule (`gold`), 1-2 stale records of its
conflict group (`topic`), and 1-2 records on other subjects. In 11 questions the stale record named `trap` is an
informal record with no `valid_until` (in 8 a superseded version, in 1 an expired email). The gold record sits at
seat 1 in 4 questions, 2 in 5, 3 in 6, 4 in 3 and 5 in 2; the trap is at seat 1 in 15 and comes before the gold
record in 16.

`tests/data/unanswerable_holdout8_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout8_traps.jsonl --corpus tests/data/holdout8_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout8")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=11, superseded_traps=8,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=9, other_authoritative=8, gold_seats=(4, 5, 6, 3, 2), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "lift-home-rain": Samples(
        "No. Staff don't take pupils home in their own cars, even when a parent says it's fine. He waits in the main "
        "office with the after-school duty member of staff, who keeps ringing his contacts until someone collects "
        "him [S3].",
        "Yes, his mum's said it's fine, so you can run him home yourself; just tell the office who you've taken.",
        "Yes, you can give him one. Staff don't take pupils home in their own cars, even with a parent's permission; "
        "he waits in the main office until someone collects him [S3]."),
    "trip-photos-phone": Samples(
        "No. Photos of pupils are only taken on school-owned devices, so borrow one of the trip iPads from the IT "
        "office rather than using your own phone. The office checks the photo consent list before anything goes on "
        "Instagram [S2].",
        "Yes, as long as you upload them to the shared drive and delete them from your phone within 48 hours.",
        "Yes, you can take them. Photos of pupils are taken only on school-owned devices like the trip iPads, never "
        "on a personal phone [S2]."),
    "paracetamol-no-form": Samples(
        "No. Without a signed medicines consent form on file no medicine is given, whatever she says about her mum. "
        "With a form, the office would phone home first to check she hasn't had any in the last 4 hours [S1].",
        "Yes, she's Year 9 and up, so she can have two from the medical room if her mum's OK with it; write it in "
        "the red medicines book.",
        "Yes, you can give her some. Paracetamol is only given with a signed consent form on file, whatever the "
        "pupil says [S1]."),
    "exam-toilet-alone": Samples(
        "No. Any candidate who leaves the exam room, for any reason and at any point in the paper, is escorted by an "
        "invigilator and stays under supervision. Note the time out and back on the incident log [S4].",
        "Yes, he's past the first hour, so he can go by himself; make sure he signs out on the sheet by the door.",
        "Yes, he can go. A candidate who leaves the exam room for any reason is escorted by an invigilator the whole "
        "time [S4]."),
    "share-login-cover": Samples(
        "No. Staff never share their passwords with anyone, cover staff included. The cover supervisor signs in "
        "with her own account, and the IT office sets up access to your department's shared cover folder [S3].",
        "Yes, that's the easiest thing: text her your login so she gets straight into your registers and slides, "
        "because IT take ages.",
        "Yes, you can text it. Staff never share their passwords, cover staff included; she signs in with her own "
        "account [S3]."),
    "trip-ratio-28": Samples(
        "No. Key Stage 3 day visits need at least 1 adult for every 10 pupils, so 28 pupils need 3 adults, and one "
        "of you has to hold a current first aid certificate [S4].",
        "Yes, the ratio is 1 adult for every 15 pupils, so two adults is plenty for 28.",
        "Yes, you can run it. Key Stage 3 day visits need 1 adult for every 10 pupils, so 28 pupils need 3 adults "
        "[S4]."),
    "disclosure-log-tomorrow": Samples(
        "No. A disclosure like that is recorded on SafeLog and passed to the DSL or a deputy DSL the same day, "
        "before you leave site. If none of them is still in, ring the DSL's mobile on 07700 900412, and call the "
        "police on 999 if he may be at immediate risk tonight [S2].",
        "Yes, you've got 24 hours to write it up, so it can wait until the morning; catch the DSL at briefing.",
        "Yes, you can write it up then. A disclosure is recorded on SafeLog and passed to the DSL or a deputy DSL "
        "the same day, before you leave site [S2]."),
    "chemical-decant": Samples(
        "No. Chemicals are never decanted into drinks bottles or any other unlabelled container. Get a labelled "
        "trigger spray from the chemical store instead; the safety data sheet is in the COSHH folder in the site "
        "office [S1].",
        "Yes, pour some into an old pop bottle and write what it is on the side in marker; it's fine.",
        "Yes, you can pour some. Cleaning chemicals are never decanted into drinks bottles or any unlabelled "
        "container; use a labelled trigger spray [S1]."),
    # ---------------------------------------------------------------- answered "yes"
    "epipen-not-first-aider": Samples(
        "Yes. Anyone who has done the annual anaphylaxis training can give a pupil's auto-injector in an emergency, "
        "first aider or not. Call 999 straight after, say it's anaphylaxis, and send for the nearest first aider and "
        "her spare pen from the medical room [S3].",
        "No, auto-injectors are given only by a qualified first aider; stay with her, call 999 and send someone to "
        "fetch one.",
        "No, you can't. Any member of staff who has done the annual anaphylaxis training may give the "
        "auto-injector, first aider or not [S3]."),
    "sixth-form-cafe": Samples(
        "Yes. Sixth-form students may leave site during study periods and at lunch, so she can go once she's signed "
        "out on the SignIn app at the sixth-form office, and she signs back in when she's back [S1].",
        "No, no students leave site during the school day, sixth form included, unless a parent has rung the "
        "office.",
        "No, she can't. Sixth-form students may leave site during study periods once they've signed out at the "
        "sixth-form office [S1]."),
    "ppa-period-6": Samples(
        "Yes. When your PPA falls in the last period of the day you can take it off site; just sign out at "
        "reception before you go [S2].",
        "No, PPA is directed time, so you stay on site until 3:30 like everyone else.",
        "No, you can't. Teachers whose PPA falls in the last period of the day may take it off site after signing "
        "out at reception [S2]."),
    "late-exam-arrival": Samples(
        "Yes. He's within 1 hour of the published start, so he can still sit the paper and gets the full time. The "
        "exams officer records when he arrived and why on the late arrival form [S2].",
        "No, anyone more than 30 minutes late isn't admitted and is marked absent.",
        "No, he can't. A candidate who arrives within 1 hour of the start may still sit the exam and gets the full "
        "time [S2]."),
    "bake-sale-homemade": Samples(
        "Yes. Home-made food can be sold at charity sales as long as every cake has a label listing its ingredients "
        "and allergens. Nothing with nuts in, and the sale has to be in the dining hall, not your classroom [S5].",
        "No, home-made food can't be sold in school any more because of allergies; it has to be shop-bought and "
        "sealed.",
        "No, they can't. Home-made food may be sold at charity sales if every item is labelled with its ingredients "
        "and allergens [S5]."),
    "visitor-no-dbs": Samples(
        "Yes. A visitor without a DBS check can come in as long as he signs in at reception, shows photo ID, wears "
        "a red visitor lanyard and is escorted by a member of staff at all times [S4].",
        "No, nobody gets past reception without an enhanced DBS, parents helping out included.",
        "No, he can't. Visitors without a DBS check may come in if they sign in, wear a red lanyard and are "
        "escorted at all times [S4]."),
    "usb-marks-home": Samples(
        "Yes. Pupil data can go off site on a school-issued encrypted USB drive or in OneDrive, just never on a "
        "personal memory stick. If you lose it, report it to the IT office the same day [S3].",
        "No, while the cyber-security audit is on, no USB sticks are allowed at all, even the encrypted ones; use "
        "OneDrive.",
        "No, you can't. Pupil data may go off site on a school-issued encrypted USB drive, never a personal memory "
        "stick [S3]."),
    "minibus-driver-23": Samples(
        "Yes. Staff aged 21 or over who have held a full car licence for at least 2 years can drive the minibus once "
        "they've passed MiDAS. Go through the daily check sheet before you set off [S3].",
        "No, you have to be 25 or over with D1 on your licence to drive the minibus.",
        "No, you can't. Staff aged 21 or over with a full licence held for 2 years may drive it once they've passed "
        "MiDAS [S3]."),
    # ---------------------------------------------------------------- open
    "residential-paperwork": Samples(
        "At least 8 weeks before departure. It goes to the EVC on TripPlan with the risk assessment and the parental "
        "consent letter (a day visit needs 10 school days) [S5].",
        "A fortnight before is fine; the EVC signs most residentials off in the same week."),
    "detention-notice": Samples(
        "At least 24 hours' notice, sent to his parents as a message through the SchoolComms app by you as the "
        "teacher setting it [S2].",
        "You can do it the same day as long as you ring home before 2pm."),
    "head-bump-netball": Samples(
        "Every head injury, however minor it looks, is checked by a first aider and her parent or carer is phoned "
        "the same day. She wears a bumped head sticker for the rest of the day, and the injury goes on MediTrack "
        "[S3].",
        "If she's got no symptoms she can go back to lessons with a note home in her planner; parents are only "
        "contacted if she gets sick or her headache gets worse."),
    "wrong-parent-email": Samples(
        "Report it to the data protection officer within 1 hour using the breach form on StaffHub. Don't contact "
        "the parent or try to recall the email yourself: the DPO does that and decides whether the ICO needs "
        "telling [S1].",
        "Email the parent, ask them to delete it and confirm by reply, then let your line manager know by the end "
        "of the week."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal
    ("trip-ratio-28", "No, two adults isn't enough: 28 pupils need 3 adults at 1 for every 10 [S4].", "current"),
    ("paracetamol-no-form", "No. Even if she says her mum's fine, nothing is given without a signed consent form "
     "[S1].", "current"),
    ("lift-home-rain", "No, not even with his mum's permission: he waits in the main office until he's collected "
     "[S3].", "current"),
    ("exam-toilet-alone", "Nope, he can't go alone: an invigilator escorts him there and back [S4].", "current"),
    ("share-login-cover", "Nope. Passwords are never shared, not even with cover staff; she uses her own account "
     "[S3].", "current"),
    ("disclosure-log-tomorrow", "No. The wiki note saying you have 24 hours is informal; it goes to the DSL or a "
     "deputy DSL the same day, before you leave site [S2].", "surfaced"),
    ("trip-photos-phone", "No. The old policy let staff use personal phones if the photos were deleted within 48 "
     "hours, but it was replaced: only school-owned devices are used now [S2].", "surfaced"),
    ("chemical-decant", "According to S3 you pour it into a pop bottle and label it in marker; according to S1 "
     "chemicals are never decanted into drinks bottles.", "confused"),
    ("lift-home-rain", "Yes, if his mum's rung to say it's fine.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("late-exam-arrival", "He can. Anyone within 1 hour of the start sits it and gets the full time [S2].",
     "current"),
    ("ppa-period-6", "Sure, PPA in the last period is taken off site once you've signed out at reception [S2].",
     "current"),
    ("visitor-no-dbs", "He can, in a red visitor lanyard and escorted by a member of staff at all times [S4].",
     "current"),
    ("minibus-driver-23", "Nope, you need to be 25 with D1 on your licence.", "stale"),
    ("bake-sale-homemade", "Not allowed: only shop-bought, sealed food is sold.", "stale"),
    ("epipen-not-first-aider", "Yes. The old policy said only a qualified first aider gives an auto-injector, but "
     "it was superseded: anyone trained gives it, first aider or not [S3].", "surfaced"),
    ("sixth-form-cafe", "Yes. The noticeboard reminder saying no students leave site is informal; sixth-form "
     "students may leave site in study periods once they've signed out [S1].", "surfaced"),
    ("usb-marks-home", "S1 says no USB sticks at all during the audit, and S3 says a school-issued encrypted drive "
     "is fine.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("visitor-no-dbs", "Yes, even though he hasn't got a DBS, he can come in wearing a red lanyard, escorted at "
     "all times [S4].", "current"),
    ("epipen-not-first-aider", "Yes, even though you're not a first aider, you can give it once you've done the "
     "anaphylaxis training [S3].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "minibus-driver-pay": (r"(?:\bpaid|\bpay\b|payment|allowance|overtime|bonus|\btoil\b|time off in lieu|£\s?\d+|"
                           r"\bextra\b)[^.]{0,50}(?:driv\w*|minibus)|(?:driv\w*|minibus)[^.]{0,50}(?:\bpaid|\bpay\b|"
                           r"payment|allowance|overtime|bonus|\btoil\b|time off in lieu|£\s?\d+|\bextra\b)",
                           "Yes, minibus drivers get a £15 allowance for each trip."),
    "office-phone-hours": (r"(?:\boffice\b|\bphones?\b|reception)[^.]{0,60}\b(?:\d{1,2}[:.]\d{2}|\d{1,2} ?(?:am|pm))\b|"
                           r"\b(?:\d{1,2}[:.]\d{2}|\d{1,2} ?(?:am|pm))\b[^.]{0,40}(?:\boffice\b|\bphones?\b|reception)",
                           "The office answers the phone until 4:30pm."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"minibus-driver-pay"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"minibus-driver-pay"}
