"""The twelfth trap set (the staff intranet of a producing theatre): its data and the counts its description
promises; `tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout12_corpus.jsonl` is the intranet of a fictional producing theatre, the Wellmarsh Playhouse Trust,
as its staff see it: stage crew (lighting, sound and flys) and stage managers, the carpenters of the Tanyard Mill
workshop, ushers, duty house managers, box office and bar staff at the Playhouse and its 150-seat Quarry Lane Studio,
and the chaperones and learning team who look after the panto children and the youth theatre. It holds the working
at height procedure, the special effects standard (haze, naked flame), the child performers policy, the
safeguarding policy, the box office procedures, the bar and licensing procedures, the front of house manual, the
workshop safety standard, the access policy, the electrical safety standard, the sound standard, the fire safety
procedure and the staff handbook, older versions of some of them, and emails, Teams posts, wiki notes, green room,
bar and stage door noticeboard notes and the FOH duty log. 50 records: 20 current authoritative rules, 10 superseded
versions, 13 informal records (11 that never expire, 2 with a `valid_until` in the past) and 7 authoritative records
on neighbouring subjects.

`tests/data/holdout12_traps.jsonl` holds 20 questions as theatre staff would ask them: 8 yes/no questions answered
"no" today (nipping up the tallescope alone to refocus a lamp, a parent with a DBS minding two other panto children,
staff comps for a Saturday evening, covering the stage detectors yourself to run haze at a Sunday tech, refunding a
double-booked customer two days ahead, serving a pint to a lad who looks 22 with no ID, slipping two latecomers into
the back row five minutes in, running the table saw alone at night while ringing stage door every hour) and 8
answered "yes" where the stale record says no or something stricter (a free companion ticket for a wheelchair
user's PA at the Studio, taking get-in overtime as TOIL, youth theatre photos on the Playhouse Instagram with signed
consent forms, a touring company's kit on our supply with a current test certificate, an usher keeping a £10 tip,
real lit candles once the flame risk assessment is signed off, an usher wearing black jeans, a 10-year-old watching
the dress rehearsal from the circle) and 4 open ones (who to tell when off sick before a show call, the loudest a
tribute band may be run, when the house opens for a 7.30 show, where a found iPhone goes and for how long). Each
names 3-5 records in retrieval rank order: the current authoritative rule (`gold`), 1-2 stale records of its
conflict group (`topic`), and 1-2 records on other subjects. In 10 questions the stale record named `trap` is an
informal record with no `valid_until` (in 9 a superseded version, in 1 an expired email). The gold record sits at
seat 1 in 3 questions, 2 in 6, 3 in 6, 4 in 4 and 5 in 1; the trap is at seat 1 in 15 and comes before the gold
record in 16.

`tests/data/unanswerable_holdout12_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout12_traps.jsonl --corpus tests/data/holdout12_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout12")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=10, superseded_traps=9,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=10, other_authoritative=7, gold_seats=(3, 6, 6, 4, 1), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "tallescope-alone": Samples(
        "No. A tallescope is only climbed with the outriggers down and two trained crew at the base, who stay there "
        "until you're back on the floor, however quick the job. Wait until two of the crew are back from their "
        "break [S3].",
        "Yes, it's fine to nip up on your own for a quick refocus, as long as the brakes are on and you shout to Dev "
        "that you're up there.",
        "Yes, you can go up. A tallescope is only climbed with two trained crew at the base and the outriggers down "
        "[S3]."),
    "chaperone-parent": Samples(
        "No. Children in the cast are looked after by chaperones licensed by their council. As she isn't a licensed "
        "chaperone, Amira's mum may look after her own child and never anyone else's, whatever checks she has, so "
        "the two friends stay with Sophie [S1].",
        "Yes, with an enhanced DBS she can look after up to three of the cast children, her own included, while "
        "Sophie takes the rest to the stage.",
        "Yes, that's OK. A parent who isn't a licensed chaperone may look after only her own child, never anyone "
        "else's [S1]."),
    "staff-comps-saturday": Samples(
        "No. Staff comps are only for performances from Monday to Thursday; they aren't issued for Friday or "
        "Saturday shows, or for press night. Your sister can buy tickets for the Saturday instead, or you could book "
        "your comps for a weeknight [S2].",
        "Yes, you get two comps per production for any performance, subject to availability, so the Saturday "
        "evening is fine if there are seats left.",
        "Yes, you can use them. Staff comps are for performances from Monday to Thursday only, not Friday or "
        "Saturday [S2]."),
    "haze-detector-covers": Samples(
        "No. Haze only runs once the duty TM has isolated the detector zones at the fire panel and logged it in the "
        "fire log; nobody covers a detector themselves. Wait for the TM at 2 and start the haze then [S4].",
        "Yes, on a tech day with no public in you can pop the dust covers on the stage detectors yourself, as long "
        "as you take them off when you're done.",
        "Yes, you can start. Haze only runs once the duty TM has isolated the detector zones at the fire panel "
        "[S4]."),
    "refund-double-booked": Samples(
        "No. Tickets aren't refunded unless the performance is cancelled or significantly changed. As it's more "
        "than 48 hours before Thursday's show, she can exchange them for another performance of Hedda for £2 a "
        "ticket, or ask us to put them back on sale [S3].",
        "Yes, she can have a refund as it's more than 24 hours before the show, less the £3 handling fee per "
        "ticket.",
        "Yes, you can refund them. Tickets aren't refunded unless the performance is cancelled or significantly "
        "changed [S3]."),
    "pint-no-id": Samples(
        "No. Anyone who looks under 25 is asked for photo ID, and without a passport, driving licence or PASS card "
        "he isn't served, whatever age he says he is. Don't let a friend buy it for him either [S5].",
        "Yes, we're Challenge 21 here and he looks over 21, so just serve him.",
        "Yes, you can serve him. Anyone who looks under 25 has to show photo ID or isn't served [S5]."),
    "latecomers-slip-in": Samples(
        "No. Latecomers only go in at the latecomer point agreed with stage management, which is on the show "
        "report; until then they watch on the foyer screen, however close to the door their seats are [S2].",
        "Yes, as they're on the end of the back row you can slip them in quietly now, just keep your torch low.",
        "Yes, you can take them in. Latecomers only go in at the latecomer point agreed with stage management "
        "[S2]."),
    "workshop-saw-alone": Samples(
        "No. The table saw and the other fixed machinery are only used when a second trained person is in the "
        "workshop, out of hours included. On your own tonight you can use hand tools or paint, and the sawing "
        "waits until someone else is in [S4].",
        "Yes, you can work on your own out of hours on any machinery you're trained on, as long as you sign in with "
        "stage door and ring them every hour.",
        "Yes, you can stay on. The table saw is only used when a second trained person is in the workshop [S4]."),
    # ---------------------------------------------------------------- answered "yes"
    "studio-companion-free": Samples(
        "Yes. Anyone who needs someone with them to attend gets a free essential companion ticket for any "
        "performance at either venue, the Quarry Lane Studio included. Book it with her own ticket and note her "
        "Access Register number [S2].",
        "No, free companion tickets are for the main house only; in the Studio her PA pays the concession price.",
        "No, it can't. Essential companion tickets are free for any performance at either venue, the Studio "
        "included [S2]."),
    "toil-get-in": Samples(
        "Yes. Overtime, get-ins included, is either paid at time and a half or taken as TOIL, whichever you choose. "
        "Agree it with your head of department and take it within 3 months [S3].",
        "No, technical staff don't get TOIL: get-in hours are only paid as overtime.",
        "No, you can't. Overtime is paid at time and a half or taken as TOIL, whichever you choose [S3]."),
    "youth-photos-instagram": Samples(
        "Yes. Photos of youth theatre members can go on the Playhouse's own Instagram because the parents have "
        "signed the photo consent form. Don't name or tag anyone, and don't post them on your personal accounts "
        "[S1].",
        "No, photos of under-18s are never published on social media, even where the parents have given consent.",
        "No, you can't. Photos of youth theatre members can go on the Playhouse's own Instagram once the consent "
        "form is signed [S1]."),
    "visiting-pat-labels": Samples(
        "Yes. A visiting company's equipment can go on our supply if each item has a PAT label from the last 12 "
        "months or is on a current test certificate, which January's is. Give every item a visual check before "
        "it's plugged in [S4].",
        "No, anything a visiting company brings goes through our own PAT tester first, no exceptions.",
        "No, they can't. Their kit can go on our supply if it's on a current test certificate from the last 12 "
        "months, after a visual check [S4]."),
    "tips-tenner": Samples(
        "Yes. Front of house staff may accept cash tips from customers; put the tenner in the shared tips tin at "
        "the box office, which is split equally each month between everyone who worked a shift [S2].",
        "No, please politely turn it down while the payroll audit is on.",
        "No, you can't. Front of house staff may accept cash tips; it goes in the shared tips tin at the box office "
        "[S2]."),
    "real-candles": Samples(
        "Yes. Naked flame on stage, lit candles included, is permitted once the flame risk assessment has been "
        "signed off by the Head of Production and the fire service told, which they have. A crew member with an "
        "extinguisher stands by in the wings whenever they're lit [S3].",
        "No, naked flame is never used on stage; the candles will have to be LED candles.",
        "No, you can't. Lit candles are permitted once the flame risk assessment is signed off, with an "
        "extinguisher standing by in the wings [S3]."),
    "black-jeans-usher": Samples(
        "Yes. Front of house staff wear the Playhouse polo shirt with their own plain black trousers or black "
        "jeans, so your jeans are fine; wear closed black shoes and your lanyard with your staff pass [S4].",
        "No, ushers wear black tailored trousers; jeans aren't part of the uniform.",
        "No, you can't. Front of house staff wear their own plain black trousers or black jeans with the polo "
        "shirt [S4]."),
    "kid-dress-rehearsal": Samples(
        "Yes. Staff can bring their own children to watch a dress rehearsal from the circle with the stage "
        "manager's agreement, so if Marcus agrees he can come. You or another adult you name stay with him "
        "throughout, and he doesn't go backstage [S2].",
        "No, dress rehearsals are closed: nobody's kids in the auditorium, it's a working rehearsal.",
        "No, you can't. Staff may bring their children to a dress rehearsal in the circle with the stage "
        "manager's agreement [S2]."),
    # ---------------------------------------------------------------- open
    "sick-before-show": Samples(
        "Phone the duty stage manager at least 3 hours before your call, so by 3.30pm, and speak to them: a text or "
        "WhatsApp message isn't enough [S3].",
        "Drop a message in the crew WhatsApp group before your call and someone will cover for you."),
    "tribute-band-level": Samples(
        "Keep it below 96 dB(A) at the desk, averaged over any 15 minutes, with peaks under 120 dB(C), and log the "
        "readings in the show report [S1].",
        "Up to 100 dB(A) at the mixing position, averaged over the whole gig."),
    "house-open-time": Samples(
        "At 6.50pm: the house opens 40 minutes before curtain up, once the stage manager has given clearance to the "
        "duty house manager [S3].",
        "At 7pm, half an hour before the show, once the duty manager has checked the auditorium."),
    "lost-iphone": Samples(
        "Log it in the lost property book and lock it in the box office safe. If nobody claims it within 14 days "
        "it goes to Wellmarsh police station [S2].",
        "Put it in the big box under the stage door desk; we keep lost property for three months before it goes "
        "to the charity shop."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal or old
    ("staff-comps-saturday", "No, not even for your sister: comps are issued for performances from Monday to "
     "Thursday only [S2].", "current"),
    ("workshop-saw-alone", "No. Even though you'd sign in with stage door and ring every hour, the table saw is only "
     "used when a second trained person is in the workshop [S4].", "current"),
    ("tallescope-alone", "Nope, a tallescope is only climbed with two trained crew at the base [S3].", "current"),
    ("latecomers-slip-in", "No, not even on the end of the back row: they wait on the foyer screen until the "
     "latecomer point [S2].", "current"),
    ("haze-detector-covers", "No. The wiki tip about putting dust covers on the detectors yourself is informal; the "
     "duty TM isolates the detector zones at the fire panel and nobody covers a detector themselves [S4].",
     "surfaced"),
    ("refund-double-booked", "No. The old box office procedure allowed refunds up to 24 hours before the show, but it "
     "was replaced: tickets aren't refunded, though she can exchange them for £2 a ticket [S3].", "surfaced"),
    ("chaperone-parent", "According to S2 a parent with a DBS can supervise up to three children; according to S1 "
     "she may look after only her own child.", "confused"),
    ("pint-no-id", "Yes, we're Challenge 21 here, so if he looks over 21 you can serve him.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("youth-photos-instagram", "You can. Photos go on the Playhouse's own Instagram where a parent has signed the "
     "consent form, and nobody is tagged [S1].", "current"),
    ("toil-get-in", "Sure, take it as TOIL within 3 months, agreed with your head of department [S3].", "current"),
    ("visiting-pat-labels", "They can: their kit is on a current test certificate, so it only needs a visual check "
     "before it's plugged in [S4].", "current"),
    ("real-candles", "Nope, LED candles only.", "stale"),
    ("kid-dress-rehearsal", "Not allowed: dress rehearsals are closed.", "stale"),
    ("black-jeans-usher", "Yes. The noticeboard note saying jeans aren't part of the uniform is informal; staff wear "
     "their own plain black trousers or black jeans with the polo shirt [S4].", "surfaced"),
    ("tips-tenner", "Yes. The email telling staff to turn down tips during the payroll audit expired at the end of "
     "January; front of house staff may accept cash tips, which go in the shared tips tin [S2].", "surfaced"),
    ("studio-companion-free", "S2 says the companion pays the concession price in the Studio, and S1 says the "
     "companion ticket is free for any performance at either venue.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("kid-dress-rehearsal", "Yes, even though it's a dress rehearsal, he can watch from the circle as long as you "
     "stay with him throughout [S2].", "current"),
    ("visiting-pat-labels", "Yes, even without us testing them first they can go on the supply, after a visual check "
     "[S4].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "taxi-after-get-out": (r"taxis?\b|\bcabs?\b|(?:travel|transport|journey)[^.]{0,40}(?:expenses?|claim|paid|"
                           r"reimburs|allowance)|(?:claim|expenses?|reimburs\w*)[^.]{0,40}(?:fare|journey|travel|"
                           r"home)",
                           "Yes, staff finishing after midnight can claim a taxi home on expenses."),
    "studio-hire-price": (r"\b(?:hire|hiring|hired|rent|rental|renting)\b[^.]{0,60}(?:£\s?\d|\bcosts?\b|charged? at|"
                          r"per (?:day|hour|session|performance))|£\s?\d[^.]{0,60}\b(?:hire|hiring|rent(?:al)?)\b",
                          "Hiring the Studio costs £450 a day, with a technician included."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"taxi-after-get-out"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"taxi-after-get-out"}
