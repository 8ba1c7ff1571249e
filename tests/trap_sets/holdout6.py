"""The sixth trap set (a regional airline's ground operations at one airport): its data and the counts its
description promises; `tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout6_corpus.jsonl` is the intranet of a fictional regional airline, Kestrel Regional Airlines, as its
ground staff at one station, Alder Valley Regional Airport (AVR), see it: ramp agents, baggage handlers, gate agents,
aircraft cleaners, the de-icing crew and ground equipment drivers. It holds the ground operations manual, the
de-icing programme, the airside driving standard, the customer service manual, the baggage handling procedures, the
cabin cleaning standard, the dangerous goods acceptance rules, the safety management manual and the station handbook,
older versions of some of them, and emails, Teams and Slack posts and wiki notes written by supervisors and staff.
50 records: 20 current authoritative rules, 9 superseded versions, 13 informal records (11 that never expire, 2 with
a `valid_until` in the past) and 8 authoritative records on neighbouring subjects.

`tests/data/holdout6_traps.jsonl` holds 20 questions as staff would ask them: 8 yes/no questions answered "no" today
(chocking an E175 on a thumbs-up with the beacon still on, boarding a late runner 7 minutes before departure, a power
bank in a checked suitcase, a de-icing trainee spraying beside the lead, a tug cutting under an ATR wing, a cleaner
taking a sealed sandwich home, earbuds under ear defenders, releasing a UM to an uncle on the mum's phone call), 8
answered "yes" where the stale record says no or something stricter (gate-tagging a big pram, a shift swap done in
ShiftBoard, cleaners dealing with vomit themselves, de-icing with passengers on board, loading a transfer bag 25
minutes before departure, meal vouchers for a 2.5-hour crew delay, pay for 10 minutes past the shift, a passenger in
his own wheelchair to the aircraft door) and 4 open ones (the tug speed limits, the lightning distance that stops
ramp work, the weight for a two-person lift, a small fuel spill). Each names 3-5 records in retrieval rank order: the
current authoritative rule (`gold`), 1-2 stale records of its conflict group (`topic`), and 1-2 records on other
subjects. In 11 questions the stale record named `trap` is an informal record with no `valid_until` (in 8 a
superseded version, in 1 an expired email). The gold record sits at seat 1 in 4 questions, 2 in 6, 3 in 6, 4 in 3 and
5 in 1; the trap is at seat 1 in 16 and comes before the gold record in 16.

`tests/data/unanswerable_holdout6_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout6_traps.jsonl --corpus tests/data/holdout6_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout6")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=11, superseded_traps=8,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=9, other_authoritative=8, gold_seats=(4, 6, 6, 3, 1), trap_at_seat_1=16,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "chocks-beacon": Samples(
        "No. Nobody goes near an arriving aircraft or puts the chocks in until the anti-collision beacon is switched "
        "off, whatever signal the crew gives you. Wait for the headset operator's raised arm [S3].",
        "Yes, a thumbs-up means the engines are spooling down, so you can go in and chock it straight away.",
        "Yes, you can go in. Ground staff don't approach or place chocks until the anti-collision beacon is off, "
        "whatever hand signal the flight crew gives [S3]."),
    "late-runner": Samples(
        "No. The gate closes 10 minutes before departure and nobody is boarded after that, even if the door is still "
        "open. Rebook him on the next available flight at no charge and record him as a gate-late no-show [S2].",
        "Yes, with the door still open you can board him up to 5 minutes before departure; just radio the ramp so "
        "they hold the stairs.",
        "Yes, you can board him. The gate closes 10 minutes before departure and no passenger is boarded after it "
        "closes, even with the door open [S2]."),
    "power-bank-checked": Samples(
        "No. Spare lithium batteries and power banks of any size never go in checked baggage. Ask her to take the "
        "power bank out and carry it in the cabin, then tag the case [S1].",
        "Yes, a power bank under 100 Wh can go in the hold as long as it's switched off and in a zip-lock, so send "
        "it down.",
        "Yes, you can tag it. Spare power banks of any size are never accepted in checked baggage; she carries it in "
        "the cabin [S1]."),
    "deice-trainee": Samples(
        "No. You're only cleared to spray once your training record shows the e-learning and a passed practical "
        "assessment. Until then you ride in the cab as an observer and don't operate the boom, even with Dana right "
        "there [S4].",
        "Yes, once the e-learning is done you can spray under the direct supervision of a qualified lead while you "
        "wait for the practical; Dana can take over the controls if needed.",
        "Yes, you can spray. Until the practical is signed off a trainee rides as an observer and does not operate "
        "the spray nozzle, even under a lead's supervision [S4]."),
    "tug-under-wing": Samples(
        "No. Vehicles never drive under any part of an aircraft, wings and tail included. Take the marked service "
        "road behind the stand, with or without carts [S3].",
        "Yes, a tug without carts may cut under the ATR wing to get to the baggage hall; keep it slow and give way "
        "to anyone on foot.",
        "Yes, you can cut under. Vehicles never drive under any part of an aircraft; tugs go round on the marked "
        "service road [S3]."),
    "leftover-sandwich": Samples(
        "No. Cleaning staff don't take any food or drink off an aircraft, sealed or not, even items catering would "
        "throw away. Leave the sandwiches in the galley carts for the catering company; taking them counts as theft "
        "[S2].",
        "Yes, sealed leftovers after the last flight are fair game, catering bins the lot anyway.",
        "Yes, you can take one. Cleaning staff do not take any food or drink from an aircraft, sealed or not [S2]."),
    "earbuds-under-muffs": Samples(
        "No. Personal audio of any kind, earbuds under ear defenders included, isn't used anywhere airside, at any "
        "volume. Your phone is for the crew room or a marked safe zone [S3].",
        "Yes, earbuds under the ear defenders are fine at a low volume; just take them out for arrival, pushback and "
        "engine start.",
        "Yes, you can. Personal audio devices, including earbuds worn under ear defenders, are not used anywhere "
        "airside [S3]."),
    "um-uncle": Samples(
        "No. A UM is released only to the adult named on the UM form, with photo ID that matches; a call from her "
        "mum doesn't change that. Stay with her and call the station duty manager [S1].",
        "Yes, since her mum confirmed by phone you can release her to another adult with photo ID; write his name "
        "and ID number on the form.",
        "Yes, you can release her. A UM goes only to the adult named on the form, whatever the parent says on the "
        "phone [S1]."),
    # ---------------------------------------------------------------- answered "yes"
    "big-pram-gate": Samples(
        "Yes. Strollers, prams and car seats of any size are tagged at the gate free of charge and handed back at the "
        "aircraft door. A big non-folding pram gets a yellow LARGE tag so the ramp loads it last [S3].",
        "No, only compact folding strollers up to 7 kg are gate-tagged; a pram that size has to be checked at the "
        "ticket counter.",
        "No, you can't. Prams of any size are tagged at the gate free of charge and returned at the aircraft door "
        "[S3]."),
    "shift-swap-app": Samples(
        "Yes. As you hold the same qualifications you can swap between yourselves in ShiftBoard, and it's approved "
        "automatically without a supervisor's sign-off. Just do it at least 24 hours before the Saturday shift [S2].",
        "No, every swap needs the duty manager's signature on the paper swap form, 72 hours ahead.",
        "No, you can't. Staff with the same qualifications swap in ShiftBoard and the swap is approved automatically "
        "[S2]."),
    "vomit-row-12": Samples(
        "Yes. Cleaners who've done the bloodborne pathogens module clean it up themselves with the red spill kit: "
        "absorbent powder, then chlorine disinfectant, with gloves, an apron and eye protection. Bag the waste in "
        "the red clinical waste bag and leave it at the aircraft door [S1].",
        "No, cleaners never deal with sick on board; tape off row 12 and call BioClean on 7120.",
        "No, you can't. Cleaners with the bloodborne pathogens module clean up vomit with the red spill kit [S1]."),
    "deice-with-pax": Samples(
        "Yes. The aircraft can be de-iced with passengers on board once the captain confirms by radio that the cabin "
        "crew are seated and the bleed air is off. Keep radio contact with the flight deck until you finish [S3].",
        "No, passengers must be disembarked first; de-icing is done before boarding starts.",
        "No, we aren't. An aircraft may be de-iced with passengers on board once the captain confirms the bleed air "
        "is off [S3]."),
    "late-transfer-bag": Samples(
        "Yes. A transfer bag that reaches make-up at least 20 minutes before departure goes on its connecting flight "
        "[S2].",
        "No, the transfer cut-off is 35 minutes, so it's held for the next flight.",
        "No, you don't. Transfer bags reaching make-up at least 20 minutes before departure are loaded on the "
        "connecting flight [S2]."),
    "meal-vouchers-crew": Samples(
        "Yes. A crew problem is within Kestrel's control, and for a delay of 2 hours or more each passenger gets a "
        "$15 meal voucher [S4].",
        "No, vouchers are only for delays of 3 hours or more now; point them to the water fountain.",
        "No, you can't. Delays of 2 hours or more within Kestrel's control get a $15 meal voucher per passenger "
        "[S4]."),
    "ten-minutes-overtime": Samples(
        "Yes. Time past your rostered finish is overtime at 1.5 times your rate, counted to the minute however short "
        "it is; claim it before the end of the pay week [S2].",
        "No, overtime is counted in 15-minute blocks, so 10 minutes isn't paid.",
        "No, you don't. Overtime is counted to the minute, however short, at 1.5 times your hourly rate [S2]."),
    "own-wheelchair-door": Samples(
        "Yes. He can stay in his own manual wheelchair up to the aircraft door, where it's tagged as a priority item "
        "and loaded last; it comes back to the aircraft door on arrival [S4].",
        "No, his own wheelchair has to be checked at the ticket counter and he moves to one of the airport chairs.",
        "No, he can't. Passengers may stay in their own wheelchair up to the aircraft door, where it's tagged as a "
        "priority item [S4]."),
    # ---------------------------------------------------------------- open
    "tug-speed-limits": Samples(
        "No more than 15 mph on the apron service roads and 5 mph once you're inside a stand's red safety line "
        "[S5].",
        "20 mph on the apron roads and 10 on the stands."),
    "lightning-distance": Samples(
        "Ramp work stops when the detection system shows a strike within 5 miles: Operations sounds the red alert "
        "and you go inside until the all-clear, 15 minutes after the last strike [S1].",
        "Work stops once lightning is within 3 miles; shelter in the nearest building for 30 minutes after the last "
        "strike."),
    "heavy-bag-lift": Samples(
        "Anything over 23 kg: it carries an orange HEAVY tag and is lifted by two people or with the vacuum lift, "
        "never alone [S2].",
        "Only bags of 32 kg and up need two people; lighter ones you can manage alone if you use your legs."),
    "small-fuel-spill": Samples(
        "Report it straight away to the Airport Operations Centre on extension 4455, however small it is; they send "
        "the fire service. Stop all equipment within 15 metres, keep everyone from driving or walking through it, "
        "and don't put absorbent down until the fire service arrives [S3].",
        "It's under a metre, so deal with it yourself: throw granules from the yellow spill bin on it, sweep it up "
        "and put it in the yellow drum."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal
    ("chocks-beacon", "No, even with a thumbs-up from the captain you don't go in until the beacon is off [S3].",
     "current"),
    ("power-bank-checked", "No. Even though it's switched off and bagged, a power bank can't go in the hold: she "
     "carries it in the cabin [S1].", "current"),
    ("um-uncle", "No, not even with her mum's call: she goes only to the adult named on the form [S1].", "current"),
    ("late-runner", "Nope. The gate closed 10 minutes before departure, so he's rebooked on the next available "
     "flight [S2].", "current"),
    ("tug-under-wing", "No. The email letting tugs cut under the ATR wing during the taxilane B works has expired; "
     "vehicles never drive under an aircraft [S3].", "surfaced"),
    ("leftover-sandwich", "No. The Teams post calling sealed leftovers fair game is informal; cleaning staff take no "
     "food or drink from an aircraft, sealed or not [S2].", "surfaced"),
    ("earbuds-under-muffs", "According to S1 you may wear earbuds at a low volume; according to S3 personal audio "
     "isn't used anywhere airside.", "confused"),
    ("deice-trainee", "Yes, under the direct supervision of a qualified lead.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("ten-minutes-overtime", "You do. Overtime is counted to the minute, however short [S2].", "current"),
    ("late-transfer-bag", "We do: anything in make-up at least 20 minutes before departure is loaded [S2].",
     "current"),
    ("big-pram-gate", "Sure, prams of any size are gate-tagged free of charge [S3].", "current"),
    ("own-wheelchair-door", "He can. He stays in his own wheelchair up to the aircraft door [S4].", "current"),
    ("shift-swap-app", "Nope, swaps need the duty manager's signature on the paper form.", "stale"),
    ("vomit-row-12", "Not allowed: call BioClean on 7120 and tape off the seats.", "stale"),
    ("deice-with-pax", "Yes. The old programme had passengers disembarked first, but it was superseded: de-icing "
     "with passengers on board is fine once the captain confirms the bleed air is off [S3].", "surfaced"),
    ("meal-vouchers-crew", "Yes. The Slack post saying vouchers start at 3 hours is informal; a crew delay of 2 "
     "hours or more gets a $15 voucher [S4].", "surfaced"),
    ("meal-vouchers-crew", "S1 says vouchers are only for 3 hours or more, and S4 says $15 for 2 hours or more.",
     "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("big-pram-gate", "Yes, even though it doesn't fold, it's tagged at the gate free of charge [S3].", "current"),
    ("deice-with-pax", "Yes, even though everyone's already seated, you can still de-ice once the captain confirms "
     "the bleed air is off [S3].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "permit-renewal-cost": (r"(?:permit|licen[cs]e|renewal)[^.]{0,40}(?:\$|fee|cost|pays?|paid|free|reimburs)|"
                            r"(?:\$|fee|cost|pays?|paid|free|reimburs\w*)[^.]{0,40}(?:permit|licen[cs]e|renewal)",
                            "Yes, Kestrel pays the permit renewal fee."),
    "free-bag-allowance": (r"(?:one|two|three|\b1|\b2|\b3|first|second) (?:free )?(?:checked )?bags?\b|"
                           r"bags? (?:are |is )?(?:free|included)|free (?:checked )?bags?|(?:baggage|bag) allowance",
                           "Each passenger gets one free checked bag up to 23 kg."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"permit-renewal-cost"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"permit-renewal-cost"}
