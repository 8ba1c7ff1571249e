"""The seventh trap set (the staff intranet of a city hotel): its data and the counts its description promises;
`tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout7_corpus.jsonl` is the intranet of a fictional mid-size city-centre hotel, the Wrenfield Hotel in
Marston, as its staff see it: front desk agents and night auditors, room attendants and housekeeping supervisors,
kitchen, room service and banqueting staff, engineers, security officers and the pool and spa team. It holds the
front office standards manual, the security and key control policy, the pool and spa operating rules, the
housekeeping procedures, the food safety plan, the banqueting and events standards, the engineering safe work
procedures, the health and safety manual and the employee handbook, older versions of some of them, and emails,
Teams and Slack posts, wiki notes and shift-log notes written by supervisors and staff. 50 records: 20 current
authoritative rules, 9 superseded versions, 13 informal records (11 that never expire, 2 with a `valid_until` in
the past) and 8 authoritative records on neighbouring subjects.

`tests/data/holdout7_traps.jsonl` holds 20 questions as staff would ask them: 8 yes/no questions answered "no" today
(cutting a key at 1am for a locked-out guest with no ID, prosecco in a glass at the back of the pool terrace, keeping
7:00 breakfast sausages on the hot counter until 12:30 because the probe reads 71°C, signing a floor master out to
a TV installer who leaves his ID, a 14-year-old in the hot tub with her dad, a night engineer alone on a 2.5-metre
ladder with the stabiliser bar on, giving a guest's room number to the woman who says she is his wife, a £38 minibar
refund in cash from the float), 8 answered "yes" where the stale record says no or something stricter (a free 1pm
checkout at 60% occupancy without the duty manager, a terrier nobody mentioned at booking, going into a room after
30 hours of Do Not Disturb, a wedding cake from a bakery in town, an engineer fixing a reported shower while the
guest is out, self-certifying 3 days of flu, a night auditor parking in the hotel car park, keeping a £20 cash tip
from room service) and 4 open ones (the lowest free chlorine reading the pool stays open at, the card hold for a
3-night stay, a used needle in a bathroom bin, how long lost property is kept). Each names 3-5 records in retrieval
rank order: the current authoritative rule (`gold`), 1-2 stale records of its conflict group (`topic`), and 1-2
records on other subjects. In 11 questions the stale record named `trap` is an informal record with no
`valid_until` (in 8 a superseded version, in 1 an expired email). The gold record sits at seat 1 in 4 questions, 2
in 6, 3 in 5, 4 in 3 and 5 in 2; the trap is at seat 1 in 15 and comes before the gold record in 16.

`tests/data/unanswerable_holdout7_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout7_traps.jsonl --corpus tests/data/holdout7_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout7")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=11, superseded_traps=8,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=9, other_authoritative=8, gold_seats=(4, 6, 5, 3, 2), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "lockout-no-id": Samples(
        "No. A replacement key is only made once photo ID has been checked against the booking. As he has nothing "
        "on him, call a security officer to go up with him, open the door and check his ID inside before you encode "
        "anything [S3].",
        "Yes, if he can give you his name, room number and the last four digits of the card on file, just cut him "
        "a new key.",
        "Yes, you can cut one. A replacement key is only encoded after checking photo ID; with no ID on him, "
        "security takes him up and checks it in the room [S3]."),
    "prosecco-glass": Samples(
        "No. Glass of any kind isn't allowed anywhere on the pool deck or terrace, the tables at the back included. "
        "Serve her prosecco in one of the blue polycarbonate cups [S2].",
        "Yes, glass is fine at the terrace tables as long as she stays more than 2 metres from the water's edge.",
        "Yes, you can. Glass of any kind is not allowed on the pool deck or terrace, tables included; drinks go in "
        "the blue polycarbonate cups [S2]."),
    "breakfast-hot-counter": Samples(
        "No. Hot food on the buffet is thrown away 4 hours after it first went out, whatever the probe says, so the "
        "7:00 sausages and bacon have to go now. Put out a fresh batch with a new hot-hold label for brunch [S1].",
        "Yes, as long as the probe reads over 63°C they're safe, so keep the hot counter going till service ends.",
        "Yes, you can leave them. Buffet food is thrown away 4 hours after it first went out, whatever its "
        "temperature [S1]."),
    "contractor-floor-key": Samples(
        "No. Master and floor keys are never signed out to contractors, whatever they offer to leave. Someone from "
        "engineering stays with him and opens each room on his work permit [S4].",
        "Yes, he can sign a floor key out from security for up to 4 hours if he leaves his photo ID as a deposit; "
        "note it in the key register.",
        "Yes, you can sign one out. Master and floor keys are never signed out to contractors; an engineer stays "
        "with him and opens each room [S4]."),
    "teen-hot-tub": Samples(
        "No. Under-16s aren't allowed in the hot tub at any time, even with a parent right beside them. She can "
        "use the swimming pool with her dad until 19:00 [S3].",
        "Yes, under-16s can use the hot tub with a parent in the family session from 4 to 6pm, 10 minutes at a "
        "time.",
        "Yes, she can go in. Children under 16 don't use the hot tub at any time, even with a parent beside them "
        "[S3]."),
    "ladder-alone-nights": Samples(
        "No. Anything more than 2 metres up a ladder needs a second person at the foot of it, with or without the "
        "stabiliser bar. If nobody else is on tonight, leave it for the day team and cone the area off if it's a "
        "hazard [S2].",
        "Yes, up to 3 metres you can do it alone as long as the ladder has its stabiliser bar fitted.",
        "Yes, you can. Ladder work more than 2 metres up needs a second person at the foot, with or without the "
        "stabiliser bar [S2]."),
    "wife-room-number": Samples(
        "No. We never give out a guest's room number, or confirm he's staying with us, to anyone, whoever they say "
        "they are. Offer to call his room so he can come down or ask her up [S2].",
        "Yes, she knows his full name and the dates, so she's obviously family; it's fine to give her the room "
        "number.",
        "Yes, you can tell her. Staff never give out a guest's room number to anyone, whoever they say they are; "
        "call his room instead [S2]."),
    "minibar-cash-refund": Samples(
        "No. Refunds only go back to the card he paid with, whatever the amount, and the front office manager or "
        "the duty manager puts it through the PMS. Cash never comes out of a front desk float as a refund [S3].",
        "Yes, it's under £50, so you can give it to him in cash from your float; just log it on the paid-out sheet "
        "and get him to sign.",
        "Yes, you can. Refunds go back only to the card he paid with, whatever the amount; cash is never paid out "
        "of the float [S3]."),
    # ---------------------------------------------------------------- answered "yes"
    "late-checkout-1pm": Samples(
        "Yes. With occupancy under 85% you can give her a late checkout up to 2pm free of charge, without the duty "
        "manager's approval [S3].",
        "No, any late checkout has to be authorised by the duty manager, and it's charged at £15 for each hour past "
        "11am.",
        "No, you can't. Agents can give a late checkout up to 2pm free of charge when occupancy is under 85%, with "
        "no need to ask the duty manager [S3]."),
    "terrier-in-room": Samples(
        "Yes. Dogs up to 20 kg are welcome even though she didn't mention it when booking. Move her to a "
        "pet-friendly room on the first floor, charge £25 a night and give her the dog pack [S1].",
        "No, we only take assistance dogs; she'll have to make other arrangements, maybe the kennels on Mill Lane.",
        "No, she can't. Dogs up to 20 kg are welcome in the pet-friendly rooms on the first floor for £25 a night "
        "[S1]."),
    "dnd-welfare-check": Samples(
        "Yes. After more than 24 hours of DND with no answer to the phone, the housekeeping supervisor goes in with "
        "a security officer for a welfare check, knocking and announcing first. Write it up in the DND log [S4].",
        "No, housekeeping never enters a room with a DND sign; after 48 hours the desk phones the room and leaves a "
        "message.",
        "No, you can't. After more than 24 hours the housekeeping supervisor and a security officer go in for a "
        "welfare check [S4]."),
    "wedding-outside-cake": Samples(
        "Yes. Cakes from outside bakeries can be brought in and served as long as the bakery supplies an allergen "
        "label. Our banqueting team cuts and plates it, with a cakeage fee of £2 per guest [S4].",
        "No, outside food is never served at functions, wedding cakes included; our pastry kitchen can copy their "
        "design.",
        "No, we can't. Outside celebration cakes are allowed with the bakery's allergen label and a £2 per guest "
        "cakeage fee [S4]."),
    "dripping-shower-221": Samples(
        "Yes. You can go into an occupied room on your own to fix a fault the guest reported. Knock twice, call out "
        "Engineering, and leave a We've been in card on the desk when you're done [S2].",
        "No, you can only go in when the guest is in the room or a housekeeping supervisor is with you; otherwise "
        "reschedule with him through the front desk.",
        "No, you can't. An engineer may enter an occupied room alone to fix a fault the guest has reported [S2]."),
    "self-certify-flu": Samples(
        "Yes. You self-certify anything up to 7 calendar days on the return-to-work form in ShiftHub; a fit note is "
        "only needed from the 8th day [S2].",
        "No, anything more than 2 days needs a doctor's note, no exceptions, or the days go down as unpaid.",
        "No, you can't. Up to 7 calendar days are self-certified on the return-to-work form; a fit note is needed "
        "only from day 8 [S2]."),
    "night-audit-parking": Samples(
        "Yes. Your shifts start and end between 22:00 and 06:00, so you can park on level -2 of the hotel car park "
        "free of charge with the staff permit from security on display [S1].",
        "No, staff don't park in the hotel car park, night shift or not; the spaces are for guests and security "
        "will clamp you.",
        "No, you can't. Staff on shifts starting or ending between 22:00 and 06:00 park free on level -2 with a "
        "staff permit [S1]."),
    "room-service-cash-tip": Samples(
        "Yes. A cash tip handed to you personally is yours to keep and doesn't go in the tronc; only tips added to "
        "a card payment or a bill are shared out through payroll [S5].",
        "No, all cash tips, room service included, go in the tronc box at the cash office at the end of your shift.",
        "No, you can't. Cash tips handed to you personally are yours to keep; only card and bill tips go to the "
        "tronc [S5]."),
    # ---------------------------------------------------------------- open
    "pool-chlorine-minimum": Samples(
        "1.5 mg/l. Free chlorine is kept between 1.5 and 3.0 mg/l and tested every 2 hours; below 1.5 the pool is "
        "cleared and closed until a retest shows it's back in range [S5].",
        "Anything over 0.5 is fine to stay open; just shock dose it and check it again at lunchtime."),
    "card-hold-three-nights": Samples(
        "£50 per night, so £150 for the 3 nights (the most for any stay is £250). The hold is released "
        "automatically at checkout once the bill is settled [S1].",
        "Take a single £100 pre-authorisation at check-in, whatever the length of the stay."),
    "needle-in-bin": Samples(
        "Don't touch it, not even with gloves. Leave the bin where it is, lock the room and call security on 2222; "
        "a security officer takes it away with the sharps kit. Then write it up in the incident log [S2].",
        "Put your gloves on, pick it up with the tongs from your trolley and drop it in the sharps tub in the linen "
        "room."),
    "lost-property-days": Samples(
        "90 days. Security logs everything in the lost property register and keeps it for 90 days; after that "
        "clothing goes to the Marston Hospice shop, and nothing is given to staff [S3].",
        "30 days, then it's up to the housekeeping manager, and unclaimed chargers usually go to whoever found "
        "them."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal
    ("teen-hot-tub", "No, not even with her dad in there: under-16s don't use the hot tub [S3].", "current"),
    ("prosecco-glass", "No. Even at the tables at the back, glass isn't allowed on the pool terrace: she gets a "
     "polycarbonate cup [S2].", "current"),
    ("lockout-no-id", "No, even if he knows the card details you don't cut a key until a security officer has "
     "checked his photo ID in the room [S3].", "current"),
    ("wife-room-number", "Nope. Room numbers are never given out, whoever is asking; ring his room instead [S2].",
     "current"),
    ("contractor-floor-key", "No. The old policy let contractors sign out a floor key for up to 4 hours, but it was "
     "replaced: keys are never signed out to contractors and an engineer opens each room [S4].", "surfaced"),
    ("minibar-cash-refund", "No. The shift-log note about paying small refunds from the float is informal; refunds "
     "go back only to the card he paid with [S3].", "surfaced"),
    ("ladder-alone-nights", "According to S1 you can work alone up to 3 metres with the stabiliser bar; according "
     "to S2 anything over 2 metres needs a second person.", "confused"),
    ("breakfast-hot-counter", "Yes, as long as they're over 63°C.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("self-certify-flu", "You can. Up to 7 calendar days are self-certified in ShiftHub [S2].", "current"),
    ("late-checkout-1pm", "Sure, a checkout up to 2pm is free while we're under 85% [S3].", "current"),
    ("terrier-in-room", "She can: dogs up to 20 kg stay in the pet-friendly rooms for £25 a night [S1].", "current"),
    ("wedding-outside-cake", "Nope, only our pastry kitchen makes cakes for functions.", "stale"),
    ("room-service-cash-tip", "Not allowed: every cash tip goes in the tronc box.", "stale"),
    ("dnd-welfare-check", "Yes. The old procedure said housekeeping never enters a DND room, but it was superseded: "
     "after 24 hours the supervisor goes in with security for a welfare check [S4].", "surfaced"),
    ("night-audit-parking", "Yes. The Teams post saying staff never park in the hotel car park is informal; night "
     "staff park free on level -2 with a permit [S1].", "surfaced"),
    ("room-service-cash-tip", "S1 says all cash tips go in the tronc box, and S5 says cash tips handed to you are "
     "yours to keep.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("terrier-in-room", "Yes, even though she didn't mention it, the dog can stay in a pet-friendly room [S1].",
     "current"),
    ("dripping-shower-221", "Yes, even though he's out, you can go in on your own to fix the fault he reported "
     "[S2].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "staff-wedding-discount": (r"discount|\d+ ?% off|(?:staff|employee) (?:rate|price)s?|half price",
                               "Yes, staff get 20% off a wedding booked here."),
    "room-service-wait": (r"(?:deliver\w*|arriv\w*|reach\w*|takes?|bring|sent up|up to (?:his|the) room)[^.]{0,50}"
                          r"\b\d+(?:\s*(?:-|to)\s*\d+)?\s*(?:minutes|mins)\b|\b\d+(?:\s*(?:-|to)\s*\d+)?\s*"
                          r"(?:minutes|mins)\b[^.]{0,40}(?:deliver|room service|his room)",
                          "It should reach his room in about 30 minutes."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"staff-wedding-discount"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"staff-wedding-discount"}
