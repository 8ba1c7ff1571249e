"""The fifth trap set (a city parks and recreation department): its data and the counts its description promises;
`tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout5_corpus.jsonl` is the intranet of a fictional city department, Fernhill Parks & Recreation, as
its park rangers, pool and aquatics staff, sports-field crews, community-centre staff, summer-camp counsellors and
permit desk see it: the aquatics manual and staff handbook, the camp manual, the ranger field procedures, the
rentals and permits procedure, the community-centre, athletic-field, fleet, safety, incident and weather standards,
the department staff handbook, older versions of some of them, and emails, Teams and Slack posts and team-wiki notes
written by supervisors and staff. 60 records: 24 current authoritative rules, 11 superseded versions, 15 informal
records (13 that never expire, 2 with a `valid_until` in the past) and 10 authoritative records on neighbouring
subjects with their own figures.

`tests/data/holdout5_traps.jsonl` holds 24 questions as staff would ask them: 9 yes/no questions answered "no"
today (a non-swimmer in the deep end with her dad, a patrol truck taken home on call, restarting a game 10 minutes
after thunder, a camper's Tylenol on a parent's text, a camper driven home, half off a pavilion for a nonprofit, a
door code for a club leader, a charcoal grill in a fire ban, an assist without the rescue tube), 9 answered "yes"
where the stale record says no or something stricter (a guard clearing the pool for lightning, the two-hourly hand
test beside an automatic controller, a seasonal guard in the staff fitness room, helping a camper with sunscreen, a
card payment by phone, a turf game in the rain, a 14-year-old in the fitness room, pay for an in-service off
schedule, a written warning for a first leash violation) and 6 open ones (the chlorine reading to open, a syringe in
a playground, the camper ratio for 5-to-7s, the heat index for bringing campers in, the incident report deadline,
the age to swim without an adult). Each names 3-5 records in retrieval rank order: the current authoritative rule
(`gold`), 1-2 stale records of its conflict group (`topic`), and 1-2 records on other subjects. In 13 questions the
stale record named `trap` is an informal record with no `valid_until` (in 10 a superseded version, in 1 an expired
email). The gold record sits at seat 1 in 4 questions, 2 in 6, 3 in 8, 4 in 5 and 5 in 1; the trap is at seat 1 in
17 and comes before the gold record in 19.

`tests/data/unanswerable_holdout5_traps.jsonl` holds 8 questions no record answers (4 of them yes/no), each
retrieving a neighbouring value a model could transplant; 4 of them retrieve a conflict group with a current
authoritative member.

A "yes" question is checked the same way as a "no" one, mirrored: its stale answer opens "No, …", the wrong-opening
shape is "No, …" followed by the current rule (the no-bias), and a bare "No." is stale and a bare "Yes." current.
The shared `check_bare_verdicts` tries "Yes." and "No, you don't." for a "yes" question; the bare "No." and the
comma-less openings are tried too (`trap_set_checks.check_balanced_answers`). The judge's opening-verdict reader
does not read "No need …" as a verdict (rightly: "No need to wait for the head guard, clear it" answers "yes"),
so the one "yes" question where it means "no" ("Do I still have to …?") carries an opening "No need" in its stale
patterns;
every "yes" question's stale patterns carry an opening "Nope" / "Not allowed", which the reader does not see either.
The judge's concessive "even …" cleared a stale claim only in a sentence that negates: a "yes" answer's concession
("Yes. Even though X, you still …") has no negator, so the "yes" questions' stale patterns leave out what the
questions state; the judge has since learnt that a main clause holding regardless ("still") rules the concession
out as well.

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout5_traps.jsonl --corpus tests/data/holdout5_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout5")
SHAPE = BalancedShape(questions=24, per_verdict=9, open=6, never_expiring_informal_traps=13, superseded_traps=10,
                      corpus=(50, 60), informal=15, never_expiring_informal=13, superseded=11, other_authoritative=10,
                      gold_seats=(4, 6, 8, 5, 1), trap_at_seat_1=17, trap_before_gold=19, unanswerable=8,
                      unanswerable_yes_no=4)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "deep-end-with-dad": Samples(
        "No. Kids who haven't passed the swim test wear a red wristband and have to stay in water under 4 feet, "
        "behind the rope line, even with a parent right beside them in the water. She can retake the test on her "
        "next visit [S2].",
        "Yes, she can go past the rope as long as her dad stays in the water within arm's reach of her.",
        "Yes, she can go with him. Swimmers who haven't passed the swim test stay in water under 4 feet behind the "
        "rope, even with a parent in the water [S2]."),
    "take-home-truck": Samples(
        "No. City vehicles stay parked overnight at their assigned yard and are never taken home, on-call staff "
        "included. If you're called out, drive your own car to the Eastside Operations Yard and pick up a truck "
        "there; the mileage is reimbursed at the IRS rate [S5].",
        "Yes, you can take it home since you live well within 25 miles; just log the trip on the mileage sheet.",
        "Yes, you can take it home. City vehicles are parked overnight at their assigned yard and never taken home, "
        "on-call staff included [S5]."),
    "lightning-restart": Samples(
        "No. The field stays closed until 30 minutes have passed with no thunder or lightning, and every new rumble "
        "restarts the count. Only the field supervisor on duty can reopen it and log it in FieldOps [S4].",
        "Yes, 10 minutes without thunder is enough, so you can let them back on and restart the game.",
        "Yes, you can tell them. Fields stay closed until 30 minutes have passed with no thunder or lightning, and "
        "only the field supervisor reopens them [S4]."),
    "camper-tylenol": Samples(
        "No. Counsellors don't give campers any medication, including over-the-counter ones like Tylenol, even with "
        "a parent's text. Only the site director or camp nurse gives medicine, with a signed Medication "
        "Authorization Form, and the first-aid kits hold no medication anyway [S3].",
        "Yes, if his mom texted an OK you can give him Tylenol from the first-aid kit; screenshot the text and note "
        "the time on the daily sheet.",
        "Yes, you can give it. Counsellors do not give campers any medication, over-the-counter included, even with "
        "a parent's text [S3]."),
    "drive-camper-home": Samples(
        "No. Staff never drive campers in their own car, with or without a parent's permission. He waits at the "
        "site with two staff members while the site director calls his mom and then the emergency contacts [S2].",
        "Yes, you can drive him home if his mom has signed a Transport Permission form, as long as there's a second "
        "staff member or camper in the car.",
        "Yes, you can drop him off. Staff never drive campers in a personal vehicle, with or without a parent's "
        "permission [S2]."),
    "nonprofit-discount": Samples(
        "No. Permit desk staff can't waive or discount any rental fee, nonprofits included. They can apply on the "
        "Fee Waiver Request form at least 30 days before the event, and the Parks Director decides; until then the "
        "full fee is due [S3].",
        "Yes, nonprofits with a 501(c)(3) letter get 50% off; just type NP50 in the discount box in RecDesk.",
        "Yes, you can take half off. Permit desk staff may not waive, reduce or discount any rental fee; nonprofits "
        "apply for a fee waiver and the Parks Director decides [S3]."),
    "chess-club-code": Samples(
        "No. Door and alarm codes are only for Parks & Rec staff and are never given to renters, volunteers or "
        "group leaders. A staff member has to open the building for every booking and stay until the group has "
        "left; if a code gets shared it's changed the same day [S4].",
        "Yes, it's fine to give regular group leaders the side-door code; just remind her to set the alarm on the "
        "way out.",
        "Yes, you can give it to her. Door codes are never given to renters, volunteers or group leaders [S4]."),
    "grill-fire-ban": Samples(
        "No. During a red-flag warning all wood and charcoal fires are banned in every park, and that includes the "
        "shelter grills. They can only use a gas or propane stove with an on/off valve, and the shelter grills get "
        "the red lockable covers until the restriction is lifted [S1].",
        "Yes, shelter grills are still fine as long as they keep a bucket of water beside the grill and somebody "
        "watches it.",
        "Yes, you can let them. During a red-flag warning all wood and charcoal fires are banned, shelter grills "
        "included [S1]."),
    "assist-without-tube": Samples(
        "No. You take your rescue tube into the water for every rescue and every assist, however close the swimmer "
        "is to the wall. Give one long whistle blast first so the backup guard covers your zone [S3].",
        "Yes, for a wall assist on a little one you can ditch the tube and just hop in; the tube is for deep-water "
        "saves.",
        "Yes, you can go without it. Lifeguards take the rescue tube in for every rescue and assist, however close "
        "the swimmer is to the wall [S3]."),
    # ---------------------------------------------------------------- answered "yes"
    "clear-pool-lightning": Samples(
        "Yes. Any lifeguard who sees lightning clears the pool straight away with three long whistle blasts, "
        "without waiting for a supervisor, and then radios the aquatics supervisor. The pool stays closed until 30 "
        "minutes after the last lightning [S2].",
        "No, only the head guard or the aquatics supervisor can order the pool cleared; radio it in and keep "
        "guarding until you're told to clear.",
        "No, you can't. Any lifeguard who sees lightning clears the pool at once without waiting for a supervisor "
        "[S2]."),
    "hand-test-controller": Samples(
        "Yes. You still hand-test free chlorine and pH with the DPD kit every 2 hours while the pool is open, "
        "whatever the controller shows, and write each result in the pool chemical log [S3].",
        "No, now the controller is in you only need to do the hand test at opening and at close; the controller "
        "logs everything in between.",
        "No, you don't. Lifeguards test free chlorine and pH by hand every 2 hours while the pool is open, whatever "
        "the automatic controller shows [S3]."),
    "seasonal-gym": Samples(
        "Yes. All Parks & Rec employees, seasonal and part-time staff included, can use the fitness rooms at any "
        "city rec center free of charge outside their own working hours. Show your staff ID at the front desk and "
        "sign the visitor sheet [S1].",
        "No, free use is only for permanent full-time employees; as a seasonal you'd pay the $6 resident day rate.",
        "No, you can't. All employees, seasonal and part-time staff included, may use the fitness rooms free of "
        "charge outside their working hours [S1]."),
    "help-with-sunscreen": Samples(
        "Yes. Counsellors may help campers put on sunscreen, including on the shoulders and upper back, as long as "
        "her parent ticked sunscreen consent on the registration form. Do it in an open area in sight of another "
        "staff member, and reapply every 2 hours [S4].",
        "No, never put sunscreen on a camper yourself, not even the little ones; hand her the bottle and let her do "
        "it.",
        "No, you shouldn't. Counsellors may help campers put on sunscreen where the parent has ticked sunscreen "
        "consent, in sight of another staff member [S4]."),
    "phone-card-payment": Samples(
        "Yes. Take it through the RecDesk virtual terminal, keying the card details straight into the terminal "
        "during the call. Never write the card number down or email it; the receipt is emailed to her address on "
        "file [S3].",
        "No, we can't take card payments over the phone; ask her to pay online or come in to the desk within 48 "
        "hours to hold the booking.",
        "No, not by phone. Permit desk staff take card payments over the phone through the RecDesk virtual terminal "
        "during the call [S3]."),
    "turf-in-rain": Samples(
        "Yes. Synthetic turf fields stay open in rain of any strength; they're closed only for lightning, standing "
        "water on the surface or a safety call by the field supervisor [S2].",
        "No, when it's raining every field is shut, turf too; tell the coaches to go home and check FieldStatus for "
        "the reschedule.",
        "No, they can't. Synthetic turf fields stay open in rain of any strength and close only for lightning or "
        "standing water [S2]."),
    "teen-in-fitness-room": Samples(
        "Yes. Kids aged 13 to 15 can use the fitness room once they've done the free 30-minute youth orientation "
        "with a fitness attendant, and they wear the green youth wristband while training [S4].",
        "No, the fitness room is for users 16 and over only; he can use the gym and pool instead.",
        "No, he isn't. Young people aged 13 to 15 may use the fitness rooms after a free 30-minute youth "
        "orientation [S4]."),
    "inservice-pay": Samples(
        "Yes. In-service is mandatory and paid at your regular hourly rate, even when it falls outside your "
        "scheduled shifts; clock in on the pool timeclock when you get there [S3].",
        "No, in-services are unpaid, they're part of keeping your cert current, so don't clock in for it.",
        "No, you don't. Monthly in-service training is paid at your regular hourly rate, including outside "
        "scheduled shifts [S3]."),
    "leash-warning": Samples(
        "Yes. For a first leash violation you can give a written warning instead of a citation; record it in "
        "RangerLog so repeat offenders can be found. A second violation within 12 months gets a citation with a $75 "
        "fine [S2].",
        "No, every leash violation is cited; rangers don't give verbal or written warnings for leash offenses.",
        "No, you can't. For a first leash violation rangers may give a written warning instead of a citation, "
        "recorded in RangerLog [S2]."),
    # ---------------------------------------------------------------- open
    "chlorine-to-open": Samples(
        "Free chlorine has to read between 2.0 and 4.0 ppm, with pH between 7.2 and 7.6; outside that range the "
        "pool stays closed [S2].",
        "Free chlorine should be between 1.0 and 3.0 ppm, and pH between 7.2 and 7.8."),
    "playground-syringe": Samples(
        "Don't pick it up, even with gloves or the litter grabber. Put a cone over the spot, keep kids away and stay "
        "nearby, then call Parks Dispatch on 555-0173 so they send the sharps team [S3].",
        "Glove up, pick it up with the litter grabber and drop it into an empty plastic bottle with the lid on, then "
        "put it in the trash."),
    "ratio-5-to-7": Samples(
        "You can have up to 8 campers in the 5-to-7 group; it's 12 for the 8-to-12s [S1].",
        "One counsellor can take 10 campers, whatever their age."),
    "heat-index-indoors": Samples(
        "At a heat index of 95°F activities move indoors or into full shade with a drink break every 20 minutes, "
        "and at 103°F all outdoor activity stops [S3].",
        "You bring everyone inside at a heat index of 100; below that, just push the water and keep them in the "
        "shade."),
    "incident-report-when": Samples(
        "File it in SafetyNet before the end of your shift today, however minor the scrape; your supervisor reviews "
        "it within 24 hours [S1].",
        "Fill in the paper IR-3 form and hand it to the facility supervisor within 72 hours."),
    "age-without-adult": Samples(
        "They have to be 12. Under 12 they need a responsible person aged 16 or over with them, so at 11 he can't "
        "come in on his own [S4].",
        "Kids aged 10 and over can swim without an adult, so at 11 he's fine on his own."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal
    ("lightning-restart", "No, 10 minutes isn't enough: the field stays closed until 30 minutes pass with no thunder "
     "[S4].", "current"),
    ("grill-fire-ban", "No. A bucket of water doesn't make it OK: charcoal fires are banned during a red-flag "
     "warning, shelter grills included [S1].", "current"),
    ("deep-end-with-dad", "No, even if her dad is in the water next to her she has to stay behind the rope [S2].",
     "current"),
    ("camper-tylenol", "No, not even with his mom's text: only the site director or camp nurse gives medicine [S3].",
     "current"),
    ("chess-club-code", "No you can't, door codes are for staff only and are never given to group leaders [S4].",
     "current"),
    ("take-home-truck", "No. Even though you live close, city vehicles stay at the yard overnight, on-call staff "
     "included [S5].", "current"),
    ("assist-without-tube", "No, not even for a wall assist; take your rescue tube in every time [S3].", "current"),
    ("nonprofit-discount", "No. The Slack post about 50% off with NP50 is informal; desk staff can't discount any "
     "fee [S3].", "surfaced"),
    ("drive-camper-home", "Nope. Staff never drive campers in a personal vehicle [S2].", "current"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("hand-test-controller", "You do. Hand-test every 2 hours whatever the controller shows [S3].", "current"),
    ("hand-test-controller", "No need, the controller logs everything in between.", "stale"),
    ("clear-pool-lightning", "Yes, you don't have to wait for the head guard: any guard clears the pool right away "
     "[S2].", "current"),
    ("seasonal-gym", "Yep, seasonal staff included, free of charge outside your working hours [S1].", "current"),
    ("turf-in-rain", "They can. Turf stays open in the rain; it closes only for lightning or standing water [S2].",
     "current"),
    ("turf-in-rain", "Nope, all fields are closed when it rains.", "stale"),
    ("teen-in-fitness-room", "Not allowed: the fitness room is 16 and over only.", "stale"),
    ("leash-warning", "Yes. The old rule said every leash violation is cited, but that was superseded: a first "
     "violation can get a written warning now [S2].", "surfaced"),
    ("inservice-pay", "Yes. The Teams post saying in-services are unpaid is informal; you're paid your regular hourly "
     "rate [S3].", "surfaced"),
    ("phone-card-payment", "According to S1 we can't take card payments over the phone; according to S3 we use the "
     "virtual terminal.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("hand-test-controller", "Yes, even though the controller logs everything, you still hand-test every 2 hours "
     "[S3].", "current"),
    ("turf-in-rain", "Yes, even if it's raining, the turf stays open unless there's lightning [S2].", "current"),
    ("inservice-pay", "Yes, even though you're not on the schedule, you're paid your regular hourly rate [S3].",
     "current"),
    ("clear-pool-lightning", "Yes, even though the head guard is on lunch, any lifeguard clears the pool right away "
     "[S2].", "current"),
    # "No need ..." is no verdict to the judge, rightly: here it opens a "yes"
    ("help-with-sunscreen", "No need to worry, you can help: counsellors may help with sunscreen where the parent "
     "ticked consent [S4].", "current"),
    ("clear-pool-lightning", "No need to wait for the head guard: any lifeguard clears the pool straight away "
     "[S2].", "current"),
    # A "yes" answer concedes without a negator ("Yes. Even though X, you still ..."): the judge reads the concession
    # as ruled out when the main clause holds regardless ("still"), as it does a negated one ("No, even with the letter
    # you can't ..."). Found while writing this set, when the judge still read it as asserted ("confused").
    ("hand-test-controller", "Yes. Even though the controller logs everything in between, you still hand-test every "
     "2 hours [S3].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "recert-course-cost": (r"recertif|certification (?:course|class|fee|cost)|(?:course|class) (?:fee|cost)s?|"
                           r"(?:pays?|paid|reimburs\w*|covers?) (?:for )?(?:the |your )?(?:course|recert|"
                           r"certification|class)",
                           "Yes, the city pays for the recertification course."),
    "pavilion-alcohol": (r"alcohol|beer|wine|liquor|spirits|drinks? permit",
                         "Yes, beer is fine if they get a drinks permit."),
    "sibling-discount": (r"sibling|second (?:child|kid)|(?:two|2|multiple|more) (?:kids|children)|family discount|"
                         r"multi-?child",
                         "Yes, the second child gets 10% off."),
    "callout-minimum-pay": (r"minimum (?:of )?(?:\d+|one|two|three|four) hours?|call-?out pay|(?:paid|pay) (?:for )?"
                            r"(?:at least|a minimum)|\b\d+ hours? (?:of )?pay\b|standby pay|on-?call (?:pay|"
                            r"allowance|rate)",
                            "You're paid a minimum of 2 hours for a call-out."),
    "pool-water-temp": (r"(?:water|pool)[^.]{0,40}(?:\d+ ?°|degrees)|(?:\d+ ?°|degrees)[^.]{0,40}(?:water|pool)|"
                        r"water temperature",
                        "The water must be kept between 82 and 86 degrees."),
    "field-lights-fee": (r"lights?\b[^.]{0,60}(?:\$|fee|charge|cost|per hour)|(?:\$|fee|charge|cost)[^.]{0,60}"
                         r"\blights?\b",
                         "It's $40 an hour for the field lights."),
    "counsellor-phone": (r"\b(?:cell ?phones?|mobile(?: phones?)?|smartphones?|(?:your|my|personal|their) phones?)\b|"
                         r"phones? (?:in|on) (?:your|my) (?:pocket|person)",
                         "Yes, you can keep your phone on you for emergencies."),
    "kayak-launch-fee": (r"(?:launch|kayak|canoe|boat|paddle)\w*[^.]{0,60}(?:\$|fee|free|charge|cost)|"
                         r"(?:\$|fee|charge|cost)[^.]{0,60}(?:launch|kayak|canoe|boat|paddle)",
                         "A kayak launch permit costs $5 a day."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"recert-course-cost", "sibling-discount", "callout-minimum-pay", "counsellor-phone"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"recert-course-cost", "pavilion-alcohol", "sibling-discount", "counsellor-phone"}
