"""The third trap set (fleet operations and travel expenses): its data and the counts its description promises;
`tests/eval/test_older_sets.py` checks them.

`tests/data/holdout3_corpus.jsonl` is the intranet of a fictional regional trucking company, Larchmont Freight
Lines (Dayton, Ohio; terminals in Fort Wayne, Louisville and Toledo): the Fleet Vehicle Policy, the Driver
Handbook, yard-safety and cargo-security standards, the maintenance standard and schedule, the fuel card rules, the
Travel and Expense Policy, old versions of each, and emails from terminal managers and Slack posts from dispatch and
driver channels. `tests/data/holdout3_traps.jsonl` holds 18 questions as drivers and staff would ask them:
13 yes/no questions, 10 of them answered "no" today (personal use of a van, a child riding along, hands-free calls,
the fuel card for a personal car, idling on a cold break, an SUV rental, a cash toll, a trailer left at a truck
stop, reversing without a spotter, a forklift on an outside certificate) and 3 answered "yes" (reporting a small
scrape, the pre-trip on the same truck, a hotel when out of hours), and 5 open questions (mileage rate, claim
deadline, who to call after a collision, maintenance interval, receipt threshold). Each names 4-5 records in
retrieval rank order: one current authoritative answer (`gold`), 1-2 stale ones on the same subject that give a
different concrete rule (superseded versions past their `valid_until`; informal emails and Slack posts, most with
no `valid_until` at all, two expired), and 1-2 records on other subjects. A stale record is rank 1 in 12 questions
(the one named `trap` in 11), the current one in the other 5, and the current record sits at every seat 1-5.
The idling and reversing records carry no `topic`: their conflict groups come from their `embedding`s (cosine
0.90-0.95 inside a group, below the 0.95 dedup threshold; the two groups far apart), which the assembler uses for
grouping when a record has no topic.

Its questions carry no `yes_no`: a question's kind is read from its opening-verdict patterns
(`trap_set_checks.question_kind`). Its unanswerable questions are `tests/data/unanswerable_freight_traps.jsonl`,
checked in `tests/eval/test_unanswerable.py`.

Besides the set's shape, the tests hold hand-written answers (current, stale, refusal, and the yes-bias shape
"Yes, you can …" followed by the current rule) to the verdicts they deserve; natural answer shapes the first
judge misjudged (an echoed question, a concessive "even ...") are held at the end of `SHAPES`.

Written on 2026-12-02, before any model answered it, without reading the prompt wording being tested
(render/guidance.py, render/prompts.py, passes/conflicts.py, docs/variants.md, docs/evaluation.md) or any model
answers (docs/eval-results/). Run it with
`evidencepack eval traps --traps tests/data/holdout3_traps.jsonl --corpus tests/data/holdout3_corpus.jsonl
--backend http --base-url ... --model ... --out eval-runs/holdout3`.
"""

from __future__ import annotations

from trap_set_checks import OlderShape, Samples, TopicSet

SET = TopicSet.named("holdout3", unanswerable=False)
SHAPE = OlderShape(questions=(16, None), records=(4, 6), gold_seats=4, kinds=(8, 3, 3), never_expiring_informal_stale=3,
                   seat_1=(3, 3))


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    "van-weekend-move": Samples(
        "No. Company vehicles, take-home vans included, are for company business only, and personal trips such as "
        "helping someone move aren't allowed, not even at weekends [S1].",
        "Yes, you can take the van for the weekend. Just have it back by Monday morning with a full tank.",
        "Yes, you can take the van over the weekend. Company vehicles may be used only for company business, and "
        "personal trips are not permitted at any time [S1].",
        refusal="I do not know whether you can use the van for that."),
    "kid-ride-along": Samples(
        "No, that isn't allowed. Only Larchmont employees on duty, assigned trainees and inspectors may ride in a "
        "company truck; family members are not permitted at any age, and the insurance doesn't cover them [S1].",
        "Yes, as long as he's 14 or older. Get a rider waiver from dispatch and have it signed before he rides "
        "along.",
        "Yes, he can come along. Family members are not permitted as passengers at any time, whatever their age "
        "[S1].",
        refusal="I do not know. The sources I have don't say whether family members can ride along."),
    "handsfree-call": Samples(
        "No. You can't take calls while the truck is moving, not even hands-free over Bluetooth. Pull over "
        "somewhere safe and call back [S4].",
        "Yes, you can take a quick hands-free call through the cab's Bluetooth, as long as you keep it short.",
        "Yes, you can take it hands-free. Drivers must not make, take or continue any phone call while the vehicle "
        "is moving, including hands-free calls [S4].",
        refusal="I do not know; the sources don't say whether hands-free calls are allowed."),
    "fuel-card-own-car": Samples(
        "No. The fuel card is only for the company vehicle it's assigned to. Fuelling your own car on it counts as "
        "card misuse even if you pay it back, and the card gets cancelled [S2].",
        "Yes, that's fine. Just tell the fleet coordinator the amount and it will be taken out of your next "
        "paycheck.",
        "Yes, you can use it for your own car if you pay it back. The fuel card may be used only for diesel, DEF "
        "and approved fluids for the company vehicle it is assigned to [S2].",
        refusal="I do not know what the fuel card rules say about personal cars."),
    "idle-on-break": Samples(
        "No. Engines have to be shut off after 3 minutes of idling, whatever the temperature. Use the diesel-fired "
        "parking heater to keep the cab warm with the engine off [S2].",
        "Yes, since it's below 40°F you're allowed to idle during your break to keep the cab warm.",
        "Yes, you can keep the engine running. Engines must be shut off after 3 minutes of idling at any outside "
        "temperature [S2].",
        refusal="I do not know the idling rules for cold weather."),
    "rental-suv": Samples(
        "No. Rentals should be intermediate class or smaller, booked through the travel desk, and an SUV upgrade "
        "isn't reimbursed however long the trip is, unless three or more employees share the car [S3].",
        "Yes, because your trip is over 300 miles you can rent a full-size car or a standard SUV.",
        "Yes, you can rent an SUV. Upgrades to full-size cars and SUVs are not reimbursed, whatever the trip "
        "length [S3].",
        refusal="I do not know which car class you can rent for that trip."),
    "cash-toll": Samples(
        "No. Tolls you pay in cash aren't reimbursed, because the transponder bills Larchmont directly. Report the "
        "failed transponder in the Driver Hub app; the toll authority bills the plate [S1].",
        "Yes, you can claim it back on your monthly expense report. Attach the toll receipt, or write it in a toll "
        "log if the plaza gave you none.",
        "Yes, you can claim it back. Tolls paid by drivers in cash or by card are not reimbursed [S1].",
        refusal="I do not know whether cash tolls can be claimed."),
    "trailer-truck-stop": Samples(
        "No. A loaded trailer can only be left overnight at a Larchmont terminal or one of the approved secure lots "
        "listed in the Driver Hub app; truck stops aren't approved, even for a few hours. Call dispatch to arrange "
        "a relay driver [S5].",
        "Yes, you can leave it at the truck stop overnight. Put a kingpin lock on it and tell dispatch where it "
        "is.",
        "Yes, you can leave it there. A loaded trailer may be left overnight only at a Larchmont terminal or an "
        "Approved Secure Parking lot [S5].",
        refusal="I do not know if truck stops are allowed for overnight parking."),
    "reverse-alone": Samples(
        "No. You need to reverse with a trained spotter guiding you, even when the yard is empty, and the camera "
        "doesn't replace a spotter. If nobody's free, call the yard office on channel 2 and wait [S1].",
        "Yes, in daylight with a clear yard you can back in on your own using your mirrors and the camera.",
        "Yes, you can back in. Vehicles reverse into a dock only with a trained spotter, even when the yard looks "
        "empty [S1].",
        refusal="I do not know whether a spotter is needed in an empty yard."),
    "forklift-prior-cert": Samples(
        "No. You can't operate a forklift here until you've completed Larchmont's operator course and passed a "
        "practical evaluation by a site trainer; certificates from other employers don't count [S3].",
        "Yes, you can start using the forklift this week. Bring your certificate to the warehouse supervisor and "
        "he'll sign you off.",
        "Yes, you can start this week. Only employees who have completed Larchmont's operator course and passed a "
        "practical evaluation are allowed to operate a forklift [S3].",
        refusal="I do not know whether your previous certificate is accepted here."),
    "bumper-scratch": Samples(
        "Yes. Every incident has to be reported, however minor, including a small scrape on a bollard. Log it in "
        "the Driver Hub app before the end of your shift with at least four photos [S2].",
        "No, you don't need to report a small scratch like that. Just note it on your post-trip inspection report.",
        refusal="I do not know if minor damage has to be reported."),
    "pretrip-same-truck": Samples(
        "Yes. You have to do a full pre-trip inspection and submit the DVIR before the first move of every shift, "
        "even if you drove the same truck yesterday [S4].",
        "No, you don't have to do a pre-trip if you did a clean post-trip on the same truck within the last 12 "
        "hours.",
        refusal="I do not know whether the walk-around is needed every shift."),
    "hotel-out-of-hours": Samples(
        "Yes. Day-cab drivers who can't get back within their hours may stay in a hotel: call the 24-hour travel "
        "desk to book it, or pay with your corporate card and claim up to $140 a night plus tax [S1].",
        "No, hotel stays aren't reimbursed for drivers. Rest in the cab and you'll get the $40 layover allowance.",
        refusal="I do not know if hotels are covered for drivers."),
    "mileage-rate": Samples(
        "It's 72 cents per mile. Claim it in the expense app with the start and end addresses of the trip [S4].",
        "You get 65 cents a mile; just put the miles on your expense sheet.",
        refusal="I do not know the current mileage rate."),
    "claim-deadline": Samples(
        "You should submit it within 30 days of the expense, so early-June receipts are due now; claims more than "
        "60 days after the expense are rejected, so get it in before early August at the latest [S2].",
        "You have 90 days from the expense date, as long as it's in before the end of the following fiscal "
        "quarter.",
        refusal="I do not know the deadline for expense claims."),
    "collision-first-call": Samples(
        "Call 911 first if anyone is hurt or the road is blocked. Then call the Larchmont Safety Line at "
        "1-800-555-0147 before anyone else, including your dispatcher, and don't admit fault at the scene [S2].",
        "Call your terminal manager first on his cell; he'll decide whether it needs to go to Safety.",
        refusal="I do not know who you should call first."),
    "pm-interval": Samples(
        "Every 15,000 miles or 60 days, whichever comes first. The Driver Hub app shows your truck's next due date "
        "[S1].",
        "Tractors are serviced every 25,000 miles, or at least every 120 days if you don't run many miles.",
        refusal="I do not know the service interval."),
    "receipt-threshold": Samples(
        "You need an itemized receipt for any expense of $25 or more [S3].",
        "Only for expenses over $75; below that, a description on the expense line is enough.",
        refusal="I do not know the receipt threshold."),
}


# More answer shapes a model writes: other openings, a stale rule negated or marked as outdated, both rules with
# nothing saying which holds. (question id, answer, verdict)
SHAPES = [
    ("van-weekend-move", "No you can't, it's for company business only.", "current"),
    ("van-weekend-move", "Nope. Company vehicles are for company business only.", "current"),
    ("van-weekend-move", "Unfortunately, you can't use the company van to help your brother move; it's for company "
     "business only [S3].", "current"),
    ("van-weekend-move", "No. The Fort Wayne manager's email [S1] says it's fine if you bring it back by Monday with "
     "a full tank, but that email is informal; the policy [S3] says company vehicles may be used only for company "
     "business.", "surfaced"),
    ("van-weekend-move", "No. The 2022 policy allowed up to 50 personal miles a week, but it was superseded in 2025: "
     "personal trips are no longer permitted [S3].", "surfaced"),
    ("van-weekend-move", "According to S3, personal trips are not permitted; according to S4, incidental personal use "
     "of up to 50 miles per week is allowed.", "confused"),
    ("kid-ride-along", "No. Even at 16, he can't ride along; family members are not permitted [S1].", "current"),
    ("kid-ride-along", "No. The old rule that let kids aged 14 or over ride with a waiver has expired; family "
     "members are not permitted now [S1].", "surfaced"),
    ("handsfree-call", "No, not even hands-free. Pull over somewhere safe to call back [S4].", "current"),
    ("handsfree-call", "No. The 2023 handbook allowed hands-free calls if kept short, but it's superseded: no calls "
     "at all while moving, hands-free included [S4].", "surfaced"),
    ("fuel-card-own-car", "No, you can't use the fuel card for your own car, even if you pay it back; that's card "
     "misuse [S2].", "current"),
    ("idle-on-break", "No. Idling isn't allowed even when it's below 40°F; engines must be shut off after 3 minutes "
     "[S2].", "current"),
    ("idle-on-break", "No. The 2022 policy let drivers idle below 40°F, but it was superseded in 2025: engines must "
     "now be shut off after 3 minutes at any temperature [S2].", "surfaced"),
    ("idle-on-break", "No \u2014 shut the engine off after 3 minutes and use the parking heater [S2].", "current"),
    ("cash-toll", "No, you cannot claim it back: tolls paid in cash or by card are not reimbursed [S1].", "current"),
    ("trailer-truck-stop", "No, you can't leave it at a truck stop. Loaded trailers may only be left at a terminal "
     "or an approved secure lot [S5].", "current"),
    ("reverse-alone", "No, not on your own. You need a trained spotter every time, even when the yard is empty "
     "[S1].", "current"),
    ("forklift-prior-cert", "Not yet. You have to finish the operator course and pass a practical evaluation by a "
     "site trainer before you can use one [S3].", "current"),
    ("forklift-prior-cert", "No one may operate a forklift here before Larchmont's operator course.", "current"),
    ("bumper-scratch", "You do. Every incident, however minor, gets reported.", "current"),
    ("bumper-scratch", "Yes. It doesn't matter that it's under $1,000; every incident, however minor, must be "
     "reported [S2].", "current"),
    ("bumper-scratch", "You do not have to report it.", "stale"),
    ("pretrip-same-truck", "Yes, you do. Even if the truck had no defects yesterday, you must do a full pre-trip "
     "before the first move of every shift [S4].", "current"),
    ("pretrip-same-truck", "Yes. You can't skip the pre-trip, even on the same truck [S4].", "current"),
    ("hotel-out-of-hours", "Yes. You don't have to sleep in the cab: book a hotel through the 24-hour travel desk "
     "[S1].", "current"),
    ("hotel-out-of-hours", "No hotels are covered.", "stale"),
    ("mileage-rate", "The rate is $0.72 per mile [S4].", "current"),
    ("mileage-rate", "It used to be 58 cents, but it's 72 cents per mile now [S4].", "surfaced"),
    ("mileage-rate", "The sources do not mention a mileage rate for training trips.", "none"),
    ("collision-first-call", "Call the Safety Line (1-800-555-0147) first; don't call your dispatcher first, the "
     "Safety Line tells them [S2].", "current"),
    ("pm-interval", "Every 15,000 miles or every two months, whichever is first [S1].", "current"),
    ("receipt-threshold", "$25.", "current"),
    # Natural answers the first judge misjudged (strict xfails until issue 24 taught it echoed questions and
    # the concessive "even ..." clause); now held like every other shape.
    ("van-weekend-move", "Can you take the company van over the weekend to help your brother move? No. Company "
     "vehicles are for company business only [S3].", "current"),
    ("cash-toll", "Can I claim it back? No: tolls paid in cash aren't reimbursed [S1].", "current"),
    ("rental-suv", "No. Even for trips over 300 miles, upgrades to an SUV are not reimbursed; book an intermediate "
     "car or smaller [S3].", "current"),
    ("reverse-alone", "No. You can't reverse without a spotter, even in daylight with a clear yard [S1].", "current"),
    ("idle-on-break", "No. Even below freezing, engines must be shut off after 3 minutes [S2].", "current"),
    # neighbours: an emphatic "even" asserts, and an echoed question does not hide a stale answer after it
    ("idle-on-break", "Yes, you can even idle below freezing for the whole break.", "stale"),
    ("cash-toll", "Can I claim it back? Yes, cash tolls are reimbursed like any other.", "stale"),
]
