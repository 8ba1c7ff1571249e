"""The fourth trap set (a hospital's non-clinical staff operations): its data and the counts its description
promises; `tests/eval/test_older_sets.py` checks them.

`tests/data/holdout4_corpus.jsonl` is the intranet of a fictional hospital, Merriwell Regional Medical Center, as its
support services staff see it (Environmental Services, Food & Nutrition, Patient Transport, Patient Access,
Security, Facilities): the facilities, access-control, key, waste, spill, uniform, dining, photography, fire and
training standards, the support services staff handbook, older versions of some of them, and emails, Teams posts
and team-wiki notes written by supervisors and staff. 53 records: 20 current authoritative rules, 9 superseded
versions, 13 informal records (11 that never expire, 2 with a `valid_until` in the past) and 11 authoritative
records on neighbouring subjects with their own figures.

`tests/data/holdout4_traps.jsonl` holds 21 questions as staff would ask them: 12 yes/no questions answered "no"
today (a leftover patient tray, a cash thank-you, a heater from home, a wedged dock door, a lent master key, a nap
in an on-call room, a meal cart in a patient elevator, a blood spill with the floor mop, a photo on Instagram,
uniforms washed at home, a patient taken out to smoke, a free meal on a double), 3 answered "yes" (a hairnet in the
dish room, reporting a needlestick that did not bleed, a security escort at 2 am) and 6 open ones (who to call for a
kitchen fire, the cafeteria discount, how full a waste bag gets, the pantry fridge log, the fire training interval,
a found wallet). Each names 3-5 records in retrieval rank order: the current authoritative rule (`gold`), 1-2 stale
records of its conflict group (`topic`), and 1-2 records on other subjects. In 11 questions the stale record named
`trap` is an informal record with no `valid_until`.

`tests/data/unanswerable_holdout4_traps.jsonl` holds 6 questions no record answers, each retrieving a neighbouring
value a model could transplant; 3 of them retrieve a conflict group with a current authoritative member.

Written before any model answered them, without reading the prompt wording (render/, passes/) or any model answer
(docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout4_traps.jsonl --corpus tests/data/holdout4_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import OlderShape, Samples, TopicSet

SET = TopicSet.named("holdout4")
SHAPE = OlderShape(questions=(18, None), records=(3, 5), gold_seats=5, kinds=(10, 3, 5), dates=15,
                   never_expiring_informal_traps=5, seat_1=(3, 8), trap_mostly_before_gold=True, corpus=(35, 55),
                   never_expiring_informal=8, samples_open_with_verdict=True, unanswerable=6)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    "leftover-trays": Samples(
        "No. Unserved patient trays count as food waste once they leave the tray line: they're logged on the waste "
        "sheet and thrown away in the kitchen, and staff can't take them home, even if they're sealed. Taking them is "
        "treated as theft [S3].",
        "Yes, you can take one home, since anything still wrapped at the end of the evening is fair game.",
        "Yes, you can take one home. Unserved patient meals must not be eaten or taken home by staff, even when "
        "sealed [S3]."),
    "gift-cash": Samples(
        "No. You can't accept cash from a patient's family in any amount, even as a thank-you. Thank her and "
        "decline; if she insists, take it to the Patient Experience office, which records it as a donation to the "
        "Merriwell Foundation [S3].",
        "Yes, you can keep it. Gifts up to $75 are allowed, including cash; just put it on the Gifts Register within "
        "5 working days.",
        "Yes, you can keep it if you declare it. Staff may not accept cash or gift cards from patients or families, "
        "in any amount [S3]."),
    "space-heater": Samples(
        "No. Heaters and other heat-producing appliances from home are prohibited in all Merriwell buildings, even "
        "tested or tagged ones. Log a temperature complaint with the Facilities Help Desk on ext. 4357 and "
        "Engineering will adjust the heating or lend you a hospital-owned heater [S2].",
        "Yes, you can bring it in. Take it to the Engineering workshop first and they'll put a green safety tag on "
        "it.",
        "Yes, you can bring it in once it's tagged. Portable heaters from home are prohibited in all Merriwell "
        "buildings, whether or not they have been tested or tagged [S2]."),
    "dock-door": Samples(
        "No. Secured exterior doors like the kitchen dock door must never be propped or wedged open, not even for a "
        "few minutes. Call Security dispatch on ext. 6000 and they'll put the door on a timed hold-open for the "
        "delivery [S1].",
        "Yes, you can wedge it for up to 10 minutes as long as someone stays by the door.",
        "Yes, you can wedge it for a moment. Secured doors, including the loading dock, must never be propped or "
        "wedged open, even briefly [S1]."),
    "master-key": Samples(
        "No. Keys from the Security key cabinet are signed out to one named employee and must not be passed to "
        "anyone else, contractors included, not even for your lunch. He has to sign out his own key at the Security "
        "office with his work permit and photo ID [S3].",
        "Yes, you can hand him your key, just stay within radio range and get it back before you go home.",
        "Yes, you can lend it to him. Keys are signed out to one named employee and must not be passed to anyone "
        "else, contractors included [S3]."),
    "oncall-room-nap": Samples(
        "No. On-call rooms are reserved for physicians and residents on call, and other staff can't use them even "
        "when they're empty. On your break you can rest in the staff lounges on levels 1 and 4, which have "
        "recliners and stay open all night [S3].",
        "Yes, you can crash in room 3 on the on-call corridor, it's always empty after midnight. Just strip the bed "
        "after.",
        "Yes, you can use one if it's empty. On-call rooms are reserved for physicians and residents on call; other "
        "staff may not use them, even when they are unoccupied [S3]."),
    "cart-elevator": Samples(
        "No. Meal carts travel only in the service elevators in banks C and D and may not be taken into the patient "
        "or visitor elevators at any time of day. If both service cars are tied up, call the Facilities Help Desk "
        "to switch one to priority service [S1].",
        "Yes, after 7 pm you can use a patient elevator in bank B, provided no patient or visitor is waiting.",
        "Yes, you can take it up in a patient elevator. Meal carts travel only in the service elevators in banks C "
        "and D [S1]."),
    "blood-spill-mop": Samples(
        "No. Blood spills of any size are cleaned with a spill kit: cover it with the absorbent granules, wait 2 "
        "minutes, scoop it into a red clinical waste bag and disinfect with the chlorine wipes. The floor mop is "
        "never used on body fluids [S3].",
        "Yes, since it's smaller than 10 cm you can clean it with the standard mop and a 1:10 bleach solution.",
        "Yes, you can use your mop. Blood spills of any size are cleaned with a spill kit, and the corridor mop is "
        "never used on body fluids [S3]."),
    "social-photo": Samples(
        "No. Photos taken anywhere inside Merriwell buildings, break rooms included, can't be posted on personal "
        "accounts until Marketing has approved them. Send it to social@merriwell-health.example; approved photos "
        "usually go up on the hospital's own channels within 3 working days [S4].",
        "Yes, you can post it on Instagram as long as no patients or screens are visible in the photo.",
        "Yes, you can post it. Photos taken inside Merriwell buildings, staff-only areas included, may not be posted "
        "on personal accounts until Marketing has approved them [S4]."),
    "uniform-home-wash": Samples(
        "No. EVS uniforms are laundered only by the hospital's contracted laundry and must not be washed at home. "
        "Leave your worn set in a blue bag in the uniform room on B1, which is open 24 hours [S1].",
        "Yes, while the drop is locked after 8 pm you can wash it at home on a hot wash.",
        "Yes, you can wash it at home this once. EVS uniforms are laundered only by the contracted laundry and must "
        "not be washed at home [S1]."),
    "patient-smoking": Samples(
        "No. Transporters move patients only between the pick-up and the destination on the job, and you can't take "
        "him outside, whoever asks. Merriwell is a tobacco-free campus; tell his nurse, who can offer nicotine "
        "replacement [S4].",
        "Yes, if his nurse says ok you can run him down to the bench past the ambulance bay for ten minutes.",
        "Yes, you can take him out for a few minutes. Transporters may not take a patient outside, whoever asks, and "
        "Merriwell is a tobacco-free campus [S4]."),
    "double-shift-meal": Samples(
        "No. Meals aren't provided free to staff whatever the length of the shift, doubles included; you get 15% off "
        "at the cafeteria and Café 4 with your badge [S4].",
        "Yes, on a shift of 12 hours or more you're entitled to one free hot meal; show the rota printout at the "
        "till.",
        "Yes, you get a free meal for a double. Meals are not provided free to employees, whatever the length of the "
        "shift, doubles included [S4]."),
    "hairnet-dish-room": Samples(
        "Yes. Everyone entering the dish room wears a hairnet or bouffant cap at all times, whatever their role "
        "[S3].",
        "No, you don't need one in the dish room; hairnets are only for the tray line and prep areas."),
    "needlestick-no-blood": Samples(
        "Yes. Every needlestick or suspected skin puncture has to be reported, even with no visible blood. Wash it "
        "with soap and water, then call Employee Health on ext. 3100 (or go to the Emergency Department after hours) "
        "within 1 hour, and file a SafeReport before the end of your shift [S1].",
        "No, you don't need to report it if the needle didn't draw blood; just wash it and keep going."),
    "security-escort": Samples(
        "Yes. Security officers will walk any staff member to their car 24 hours a day. Call Security dispatch on "
        "ext. 6000 or press SafeWalk in the Merriwell Staff app; the wait is usually under 10 minutes [S3].",
        "No, escorts only run between 7 pm and midnight. At 2 am you should take the staff shuttle."),
    "fire-first-call": Samples(
        "Pull the nearest red alarm station, then dial 2222 from any hospital phone and say Code Red with the exact "
        "location. Only use an extinguisher if you're trained and the fire is no bigger than a wastebasket [S2].",
        "Grab the K-class extinguisher by the fryers, then call Engineering on 4400 so they can shut off the gas."),
    "cafeteria-discount": Samples(
        "It's 15% off food and drink at the cafeteria and Café 4 when you show your badge at the till (not at the "
        "vending machines) [S5].",
        "Staff get 25% off everything in the cafeteria."),
    "waste-bag-fill": Samples(
        "Tie it off when it's two-thirds full or weighs 15 lb, whichever comes first, with a swan-neck knot and a "
        "ward tag [S1].",
        "You can fill it until it's three-quarters full, then seal it."),
    "pantry-fridge-log": Samples(
        "Twice a day, at the start of the day and night shifts, on the log sheet on the door. It must read 41°F "
        "(5°C) or below; report anything warmer to the Food & Nutrition supervisor on ext. 3663 [S3].",
        "Once a week is enough, just tick the sheet; anything under 45°F is fine."),
    "fire-training-interval": Samples(
        "Every 12 months, for all staff, in MyLearning; if you're more than 30 days overdue you're taken off the "
        "rota until it's done [S3].",
        "Every two years for non-clinical staff, so you're not due yet."),
    "found-wallet": Samples(
        "Take it to the Security office at the main entrance within the hour; they log it in the Lost Property "
        "register with your name and keep it for 90 days [S3].",
        "Put it in the info desk drawer at the main desk; visitors always come back there first."),
}


# Other shapes a model writes: the stale rule negated or marked as outdated, both rules with nothing saying which
# holds. (question id, answer, verdict)
SHAPES = [
    # negations the judge once missed ("n't" contractions beyond a few, a negated verdict after the claim)
    ("gift-cash", "No. Declaring it on the Gifts Register doesn't make it OK: cash can't be accepted in any amount "
     "[S3].", "current"),
    ("pantry-fridge-log", "Twice daily, and it must read 41°F or below; under 45 is not OK [S3].", "current"),
    ("dock-door", "No, it wasn't ever fine for up to 10 minutes; the door must never be wedged [S1].", "current"),
    ("leftover-trays", "No, not even if it's still wrapped; unserved patient food is food waste [S3].", "current"),
    ("gift-cash", "No. The 2021 policy allowed gifts up to $75 including cash, but it was superseded: cash can't be "
     "accepted in any amount now [S3].", "surfaced"),
    ("space-heater", "No, not even with a green safety tag: heaters from home are prohibited [S2].", "current"),
    ("dock-door", "According to S2 you can wedge it for up to 10 minutes; according to S1 secured doors must never "
     "be propped.", "confused"),
    ("cart-elevator", "No. The old standard let carts use bank B after 7 pm, but that is no longer valid: carts go "
     "only in the service elevators [S1].", "surfaced"),
    ("social-photo", "No, even if there are no patients in it. Photos from inside the building need Marketing's "
     "approval first [S4].", "current"),
    ("double-shift-meal", "No, you don't get a free meal for a double; staff get 15% off [S4].", "current"),
    ("hairnet-dish-room", "You do. Hairnets are required at all times in the dish room too [S3].", "current"),
    ("needlestick-no-blood", "Yes, even though it didn't draw blood, report it to Employee Health within 1 hour "
     "[S1].", "current"),
    ("pantry-fridge-log", "Twice a day; anything above 41°F gets reported. Note that the Teams post saying once a "
     "week and under 45 is informal [S3].", "surfaced"),
    ("cafeteria-discount", "It's 15%, not 25% [S5].", "current"),
    ("cafeteria-discount", "The discount is 15% now; the 25% figure was from the previous guidelines [S3].",
     "surfaced"),
    ("social-photo", "Not unless Marketing approves it first [S4].", "current"),
    # the judge's negators before a stale match are not, no, never, can't, don't, ... but not shouldn't, mustn't,
    # didn't, wasn't: the stale patterns that restate an action skip a preceding "n't" themselves
    ("uniform-home-wash", "No, you shouldn't wash it at home [S1].", "current"),
    ("master-key", "No, you mustn't hand him your key; he signs out his own [S3].", "current"),
    ("space-heater", "No, you shouldn't take it to Engineering for a tag: heaters from home are prohibited [S2].",
     "current"),
    ("needlestick-no-blood", "Yes. Report it within 1 hour, even though it didn't break the skin and draw blood "
     "[S1].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "fire-training-paid": (r"paid (?:for|time|training)|(?:get|be|are|is|it's|it is) paid\b|on the clock|"
                           r"clock(?:ed)? (?:in|on)|time ?sheet|overtime|hours? (?:are|is) (?:paid|counted|credited)",
                           "Yes, it's paid time: put the hours on your timesheet."),
    "pantry-freezer": (r"freezer", "The freezer must stay at 0°F or below."),
    "retirement-collection": (r"whip-?round|retir(?:e|es|ing|ement)|leaving (?:gift|present|collection)|"
                              r"(?:colleagues?|coworkers?|co-workers?|each other)\b[^.]{0,60}gifts?|"
                              r"gifts?\b[^.]{0,60}(?:colleagues?|coworkers?|co-workers?|between (?:staff|employees))",
                              "Gifts between colleagues are capped at $50 per person."),
    "locker-key-fee": (r"locker[^.]{0,60}(?:\$|fee|charge|cost|pay|free)|(?:\$|fee|charge|cost|free)[^.]{0,60}locker",
                       "A replacement locker key costs $10."),
    "carry-limit": (r"\blift(?:s|ing|ed)?\b|manual handling|(?:weight|load) limit|"
                    r"\b\d+ ?(?:lb|lbs|pounds|kg)\b[^.]{0,60}(?:box|boxes|carry|on your own|alone|by yourself)|"
                    r"(?:box|boxes|carry|carried)[^.]{0,60}\b\d+ ?(?:lb|lbs|pounds|kg)\b",
                    "You can carry boxes up to 35 lb on your own."),
    "parking-part-time": (r"part[- ]time|pro[- ]?rat|half[- ]price|reduced (?:rate|fee|price|permit)",
                          "Yes, part-time staff pay $11 per pay period."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"fire-training-paid", "pantry-freezer", "retirement-collection"}
# None of them is yes/no.
U_YES_NO: set[str] = set()
