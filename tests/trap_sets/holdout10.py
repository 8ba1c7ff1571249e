"""The tenth trap set (the field operations intranet of a regional water company): its data and the counts its
description promises; `tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout10_corpus.jsonl` is the intranet of a fictional regional water company, Brackenmoor Water, as its
field staff see it: network technicians and mains repair gangs at the Carrow Bridge and Saltmarsh depots, the
standby rota and Network Control at Kettleby, water quality samplers, meter readers and meter fitters, customer
field officers, and the drivers of the van fleet. It holds the confined space entry procedure, the water quality
sampling manual, the excavation safety standard, the lone working and on-call policy, the fleet and driving policy,
the street works and traffic management code, the metering procedures, the billing and charges policy, the
customer field visits standard, the PPE standard, the water hygiene code, the field guidance for this year's
temporary use (hosepipe) ban, the network operations manual and the field staff handbook, older versions of some
of them, and emails, Teams posts, wiki notes, depot noticeboard notes and handover logs. 50 records: 20 current
authoritative rules, 10 superseded versions, 13 informal records (11 that never expire, 2 with a `valid_until` in
the past) and 7 authoritative records on neighbouring subjects.

`tests/data/holdout10_traps.jsonl` holds 20 questions as field staff would ask them: 8 yes/no questions answered
"no" today (nipping down a 1.2m valve chamber alone while the mate stays in the van, putting a repaired main back
into supply and leaving the bacti sample for the morning sampler, keeping a customer's £20 Christmas Eve tip once
the supervisor knows, giving a wife a lift to work in the van, getting into a 1.3m trench in solid clay without the
trench box, taking a callout after 13 hours on, going back on the mains gang 24 hours after a stomach bug, answering
control on the van's hands-free while driving) and 8 answered "yes" where the stale record says no or something
stricter (taking the van home for a standby week, bottled water for a household 5 hours without a supply, the
callout payment for a fault sorted over the phone, a gang putting up portable two-way lights themselves on a 30 mph
road, boundary-box meter exchanges with nobody home, a leak allowance for a supply pipe fixed after 3 weeks, leaving
the hard hat in the van on a day of footpath meter reading, a Blue Badge holder using a hose during the ban) and 4
open ones (how quickly a visible burst is attended, how to report a garden wall clipped by the van, how long bacti
samples have to reach the lab, what a customer gets for a missed appointment). Each names 3-5 records in retrieval
rank order: the current authoritative rule (`gold`), 1-2 stale records of its conflict group (`topic`), and 1-2
records on other subjects. In 10 questions the stale record named `trap` is an informal record with no
`valid_until` (in 9 a superseded version, in 1 an expired email). The gold record sits at seat 1 in 3 questions, 2
in 7, 3 in 5, 4 in 4 and 5 in 1; the trap is at seat 1 in 15 and comes before the gold record in 16.

`tests/data/unanswerable_holdout10_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout10_traps.jsonl --corpus tests/data/holdout10_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout10")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=10, superseded_traps=9,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=10, other_authoritative=7, gold_seats=(3, 7, 5, 4, 1), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "chamber-quick-gauge": Samples(
        "No. Every chamber entry is a confined space entry, however shallow it is or quick the job. You need an "
        "entry permit from Network Control, Gary standing at the opening as top person the whole time you're below, "
        "and a personal gas monitor on you [S3].",
        "Yes, chambers under 1.5m aren't classed as confined spaces, so test the air from the top and you can pop "
        "down on your own.",
        "Yes, you can go down. Every chamber entry needs an entry permit from Network Control, a top person at the "
        "opening and a personal gas monitor [S3]."),
    "repair-bacti-tomorrow": Samples(
        "No. The bacti sample has to be taken before the main goes back into supply, and on the same day as the "
        "repair, so call out the on-call sampler tonight. Keep flushing until the free chlorine matches the network "
        "[S2].",
        "Yes, put it back on now; the bacti sample only has to be taken within 24 hours, so the sampler can do it "
        "in the morning.",
        "Yes, you can put it back. The bacti sample is taken before the main goes back into supply, on the same "
        "day, by the on-call sampler [S2]."),
    "christmas-eve-tip": Samples(
        "No. Field staff don't accept cash or tips of any value from customers, however small, so politely hand it "
        "back. If there's no way to give it back, it goes to the depot manager for the charity collection [S1].",
        "Yes, tips up to £25 are fine as long as you declare it to your supervisor within a week.",
        "Yes, you can keep it. Field staff don't accept cash or tips of any value from customers, however small "
        "[S1]."),
    "wife-lift-van": Samples(
        "No. Only Brackenmoor employees and contractors on Brackenmoor jobs travel in the vans, and family are never "
        "carried, including on the way to or from work, because the fleet insurance doesn't cover them [S4].",
        "Yes, giving your wife a lift on the way in is fine as long as you go straight to the depot.",
        "Yes, you can drop her off. Only employees and contractors on Brackenmoor jobs travel in company vehicles, "
        "and family are never carried [S4]."),
    "trench-solid-clay": Samples(
        "No. Anything deeper than 1.2 metres has a trench box or shoring in before anyone gets in, whatever the "
        "ground is like, so fetch the box. The gang leader inspects it at the start of each shift [S2].",
        "Yes, in firm clay it can stay unsupported up to 1.5 metres, so Kev can get in if the gang leader's happy.",
        "Yes, he can get in. Any excavation deeper than 1.2 metres is supported with a trench box or shoring first, "
        "whatever the ground [S2]."),
    "thirteen-hours-callout": Samples(
        "No. Nobody attends a callout after working 12 hours in the last 24, however fit they feel, and you're at "
        "13. Ring the standby manager and they'll send the second on-call instead [S5].",
        "Yes, you can do up to 16 hours on call if you're happy to keep going; just ring the standby manager.",
        "Yes, you can take it. Nobody attends a callout after 12 hours' work in the last 24; the standby manager "
        "sends the second on-call [S5]."),
    "stomach-bug-back": Samples(
        "No. After diarrhoea or vomiting you stay off drinking water mains, fittings and sampling until 48 hours "
        "after your last symptoms, so not before about 9am on Thursday. Tell your supervisor before your next shift "
        "and you'll get depot or office work in the meantime [S3].",
        "Yes, 24 hours clear is enough, so you can go back tomorrow morning.",
        "Yes, you can go back. Nobody works on drinking water mains until 48 hours after their last symptoms "
        "[S3]."),
    "handsfree-control": Samples(
        "No. You don't take calls while driving a company van, even on the hands-free. Let control go to voicemail, "
        "then pull over somewhere safe with the engine off and ring them back within 15 minutes [S2].",
        "Yes, hands-free is fine for quick calls with control; it's only holding the phone that isn't allowed.",
        "Yes, you can answer on hands-free. Drivers don't take calls while driving, hands-free included; pull over "
        "somewhere safe first [S2]."),
    # ---------------------------------------------------------------- answered "yes"
    "standby-van-home": Samples(
        "Yes. Staff on the standby rota take their van home for the whole standby week, so take it tonight and park "
        "it off the road if you can [S4].",
        "No, all vans have to be back in the yard by 6pm, standby or not; if you're called out you pick up a van "
        "from the yard.",
        "No, you can't. Staff on the standby rota take their van home for the whole standby week and park it off "
        "the road [S4]."),
    "newborn-bottled-water": Samples(
        "Yes. Any household that's been without water for more than 4 hours gets bottled water from the van, 6 "
        "litres per person per day, so give her enough for everyone in the house [S2].",
        "No, bottled water only goes to customers on the Priority Services Register, or to other households after "
        "12 hours without a supply.",
        "No, you can't. Field staff give bottled water to any household without a supply for more than 4 hours, 6 "
        "litres per person per day [S2]."),
    "phone-fix-callout-pay": Samples(
        "Yes. Every callout is paid at a minimum of 1 hour at the callout rate, including ones sorted over the phone "
        "without leaving home. Claim it in FieldHub with Network Control's job number [S1].",
        "No, phone fixes don't count as callouts; you only get the callout payment if you actually attend site.",
        "No, you can't. Every callout is paid at a minimum of 1 hour, including calls resolved over the phone "
        "[S1]."),
    "portable-lights-ourselves": Samples(
        "Yes. On an emergency job a gang with an in-date SW-1 lights card can put up portable two-way lights "
        "themselves on a road of 40 mph or less. Let the council's street works team know within 2 hours [S3].",
        "No, portable lights are only set up by the traffic management contractor, emergency jobs included, so use "
        "stop/go boards until the contractor arrives.",
        "No, you can't. A gang with an in-date SW-1 lights card may set up portable two-way lights on roads of 40 "
        "mph or less [S3]."),
    "boundary-box-nobody-home": Samples(
        "Yes. Boundary-box meters in the footpath or verge can be exchanged without an appointment, whether or not "
        "anyone's in. Push a 'We've changed your meter' card through the door with both readings, and keep the "
        "supply off for no more than 30 minutes [S3].",
        "No, every meter exchange needs a booked appointment with the customer at home, boundary boxes included.",
        "No, you can't. Boundary-box meters may be exchanged without an appointment, whether or not anyone is in "
        "[S3]."),
    "leak-three-weeks": Samples(
        "Yes. She gets a leak allowance because the supply pipe was repaired within 30 days of the leak being found. "
        "It covers the water lost above her normal use, and it's given once per property every 5 years [S3].",
        "No, leak allowances only apply if the pipe's fixed within 14 days, so after 3 weeks she gets nothing.",
        "No, she can't. Leaks on the supply pipe repaired within 30 days of being found get an allowance for the "
        "water lost above normal use [S3]."),
    "hardhat-meter-reading": Samples(
        "Yes. Meter readers working at footpath boundary boxes with no digging and nothing overhead can leave the "
        "hard hat in the van. Keep your hi-vis and safety boots on, and the hard hat goes back on for every "
        "excavation, inside chambers or wherever there's work overhead [S2].",
        "No, hard hats stay on at all times when you're out of the van on any job, meter reading included.",
        "No, you can't. Meter readers at footpath boundary boxes with nothing overhead may leave the hard hat in "
        "the van, with hi-vis and safety boots on [S2]."),
    "blue-badge-hosepipe": Samples(
        "Yes. Blue Badge holders are exempt from this year's temporary use ban, so he can use his hose on the veg "
        "patch. If you see anyone else breaking the ban, report it through FieldHub rather than challenging them "
        "[S4].",
        "No, there are no exemptions for individual customers, Blue Badge holders included, so he'll have to use a "
        "watering can.",
        "No, he can't. Blue Badge holders are exempt from the temporary use ban and may use a hosepipe on their "
        "garden [S4]."),
    # ---------------------------------------------------------------- open
    "kiln-lane-burst": Samples(
        "Within 2 hours of the report, day or night. It would be 1 hour if water were getting into a property or "
        "flooding the road, but it isn't [S2].",
        "Within 4 hours of the report, and if it had come in after 10pm it could wait until the next working "
        "morning."),
    "garden-wall-reversing": Samples(
        "Report it in the FleetLine app within 24 hours, with photographs of the wall and of the van. Give her a "
        "claims card from the glovebox, and don't admit liability at the scene [S2].",
        "Fill in a yellow accident form at the depot and leave it in the transport manager's tray by Friday."),
    "bacti-to-lab-time": Samples(
        "Within 6 hours of taking them, so they need to be at the Kettleby lab by 5pm. Keep them in the cool box at "
        "2 to 8°C until then [S4].",
        "There's no rush: they're good for 24 hours in the van fridge, so you can drop them at the lab next "
        "morning."),
    "missed-slot-compensation": Samples(
        "She gets £40, credited to her next bill automatically, so she doesn't have to claim it [S1].",
        "She can claim £20 by writing to Customer Relations within 3 months of the missed appointment."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal or old
    ("repair-bacti-tomorrow", "No, not in the morning: the bacti sample is taken before the main goes back into "
     "supply, the same day [S2].", "current"),
    ("wife-lift-van", "No. Even if you go straight to the depot, family members are never carried in company "
     "vehicles [S4].", "current"),
    ("thirteen-hours-callout", "No, not even if you feel fine: nobody attends a callout after 12 hours' work in the "
     "last 24 [S5].", "current"),
    ("chamber-quick-gauge", "Nope, you need a top person at the opening and an entry permit, however shallow the "
     "chamber [S3].", "current"),
    ("handsfree-control", "Nope. Hands-free included, drivers don't take calls while driving; pull over somewhere "
     "safe first [S2].", "current"),
    ("wife-lift-van", "No. The wiki note saying a lift on the way in is fine is informal; family are never carried "
     "in company vehicles [S4].", "surfaced"),
    ("trench-solid-clay", "No. The old standard let firm clay go unsupported to 1.5 metres, but it was replaced: "
     "anything deeper than 1.2 metres is supported before anyone gets in [S2].", "surfaced"),
    ("christmas-eve-tip", "According to S2 you can keep tips up to £25 if you declare them; according to S1 staff "
     "don't accept tips of any value.", "confused"),
    ("stomach-bug-back", "Yes, 24 hours is enough.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("boundary-box-nobody-home", "You can. Boundary-box meters can be exchanged without an appointment, whether or "
     "not anyone's in [S3].", "current"),
    ("standby-van-home", "Sure, it goes home with you for the whole standby week [S4].", "current"),
    ("newborn-bottled-water", "She can: any household without water for more than 4 hours gets bottled water, 6 "
     "litres per person per day [S2].", "current"),
    ("leak-three-weeks", "Nope, only within 14 days.", "stale"),
    ("blue-badge-hosepipe", "Not allowed: there are no exemptions during the ban.", "stale"),
    ("phone-fix-callout-pay", "Yes. The Teams post saying phone fixes don't count is informal; every callout is paid "
     "at a minimum of 1 hour, including ones sorted over the phone [S1].", "surfaced"),
    ("portable-lights-ourselves", "Yes. The old code kept gangs on stop/go boards until the contractor arrived, "
     "but it was superseded: with an in-date SW-1 lights card you can set up two-way lights on a road of 40 mph or "
     "less [S3].", "surfaced"),
    ("hardhat-meter-reading", "S1 says hard hats are on for any job, meter reading included, and S2 says meter "
     "readers at boundary boxes can leave them in the van.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("newborn-bottled-water", "Yes, even though she isn't on the Priority Services Register, she gets bottled water "
     "after more than 4 hours without a supply [S2].", "current"),
    ("boundary-box-nobody-home", "Yes, even though nobody's home, you can swap boundary-box meters without an "
     "appointment [S3].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "christmas-standby-extra": (r"christmas|bank holiday|public holiday|double (?:time|pay|rate)|time and a half|"
                                r"(?:extra|additional|enhanced|higher) (?:payment|allowance|pay|rate)|premium",
                                "Yes, standby over Christmas Day is paid at double time."),
    "standpipe-hire-price": (r"(?:standpipe|hydrant|hire)[^.]{0,60}(?:£\s?\d|per day|a day|a week|per week|free of "
                             r"charge|no charge)|£\s?\d[^.]{0,60}(?:standpipe|hydrant|hire)",
                             "Standpipe hire is £45 a week plus the water he uses."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"christmas-standby-extra"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"christmas-standby-extra"}
