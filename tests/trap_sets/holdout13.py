"""The thirteenth trap set (the staff intranet of a supermarket and its home-delivery depot): its data and the
counts its description promises; `tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout13_corpus.jsonl` is the intranet of a fictional supermarket chain, Cobbold's, as the colleagues of
its Hexley superstore and its Furnace Lane home-delivery depot see it: checkout and self-scan colleagues, the bakery,
deli and hot counter teams, night fill and goods in (roll cages, hand and powered pallet trucks), the cash office and
its keyholders, security, the customer service desk, the pharmacy counter, and the depot's online-order pickers and
van drivers. It holds the materials handling standard, the home delivery procedures, the cash security procedure,
the restricted sales policy, the fleet and driving standard, the store security procedure, the customer service desk
manual, the food hygiene standard, the pharmacy counter procedures, the food waste procedure, the young workers
standard, the depot picking procedure and the colleague handbook, older versions of some of them, and emails, Teams
posts, wiki notes and colleague room, drivers' room, dispensary and picking room noticeboard notes. 50 records: 20
current authoritative rules, 10 superseded versions, 13 informal records (11 that never expire, 2 with a
`valid_until` in the past) and 7 authoritative records on neighbouring subjects.

`tests/data/holdout13_traps.jsonl` holds 20 questions as store and depot colleagues would ask them: 8 yes/no
questions answered "no" today (taking two pallets of water through on the powered pallet truck without a PPT
authorisation while Kev is on his break, leaving an order with a bottle of prosecco with the neighbour the delivery
notes name, lending Mum the Colleague Card for her Thursday shop, doing the till lifts alone in view of the cash
office camera, putting three packs of paracetamol through for a family down with flu, taking the van home the night
before an early first drop two streets away, putting a reduced sourdough under the counter to pay for on the way
out, following a whisky thief into the car park for his number plate) and 8 answered "yes" where the stale record
says no or something stricter (refunding a boxed kettle with no receipt, checking back stock on the Colleague Hub app
on your own phone, keeping a full beard on the deli in a snood, handing a neighbour a patient's bagged prescription,
giving the unsold bread to a food bank on the FoodShare list, splitting the 30-minute break into two of 15, carrying
an older customer's crates into her kitchen, a 17-year-old with the hand pallet truck course moving 300 kg
half-pallets) and 4 open ones (how long a van driver drives before a break and how long the break is, when rotisserie
chickens out at 11.15 come off the hot counter and what happens to them, the earliest start the morning after an 11pm
close, how long chilled totes may sit on the dock). Each names 3-5 records in retrieval rank order: the current
authoritative rule (`gold`), 1-2 stale records of its conflict group (`topic`), and 1-2 records on other subjects.
In 10 questions the stale record named `trap` is an informal record with no `valid_until` (in 9 a superseded
version, in 1 an expired email). The gold record sits at seat 1 in 3 questions, 2 in 6, 3 in 6, 4 in 4 and 5 in 1;
the trap is at seat 1 in 15 and comes before the gold record in 16.

`tests/data/unanswerable_holdout13_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout13_traps.jsonl --corpus tests/data/holdout13_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout13")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=10, superseded_traps=9,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=10, other_authoritative=7, gold_seats=(3, 6, 6, 4, 1), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "ppt-untrained": Samples(
        "No. Only colleagues with a current PPT authorisation, the green dot on their badge, drive the powered "
        "pallet trucks, and that goes for short moves too. Leave the water where it is until Kev is back at 6.15 "
        "[S3].",
        "Yes, short hops like that are fine once you've watched someone do it a few times; just keep it in tortoise "
        "mode.",
        "Yes, you can take them through. Powered pallet trucks are only driven by colleagues with a current PPT "
        "authorisation [S3]."),
    "alcohol-neighbour": Samples(
        "No. Because there's alcohol in the order it only goes to an adult at the delivery address, never to a "
        "neighbour or a safe place. With nobody in, the whole order goes back to the depot and customer services "
        "rebook it [S1].",
        "Yes, as her notes ask for it you can leave it with number 11, as long as he signs for it on the handheld.",
        "Yes, you can leave it with him. An order with alcohol in it is handed only to an adult at the delivery "
        "address [S1]."),
    "discount-mum": Samples(
        "No. The card is scanned only when you're at the till paying for your own shopping. Someone who lives with "
        "you can register for a linked partner card, but nobody else may use yours [S2].",
        "Yes, you can lend it to close family like your mum, and she can use it even when you're not with her.",
        "Yes, you can lend it. The Colleague Card is scanned only when the colleague is at the till paying for it "
        "[S2]."),
    "till-lift-alone": Samples(
        "No. Till lifts are always done by two colleagues together, one of them a keyholding team leader or "
        "manager, camera or not. Keep the tills locked and ring the duty manager to send a second person [S4].",
        "Yes, one keyholder can do the lifts on their own as long as you stay in view of the cash office camera the "
        "whole time.",
        "Yes, you can do them. Till lifts are done by two colleagues together, one of them a keyholding team leader "
        "or manager [S4]."),
    "paracetamol-three-packs": Samples(
        "No. A customer can have no more than two packs of paracetamol, aspirin or ibuprofen in one visit, whatever "
        "the reason. Put two through and refuse the third, and don't ring it up as a separate sale [S3].",
        "Yes, customers can buy up to three packs in a single transaction, so all three can go through.",
        "Yes, you can put them through. A customer may buy no more than two packs of paracetamol, aspirin or "
        "ibuprofen in one visit [S3]."),
    "van-home-overnight": Samples(
        "No. Vans stay in the Furnace Lane compound overnight on charge, with the keys back in the key safe, however "
        "close your first drop is to where you live. You'll need to start from the depot in the morning [S5].",
        "Yes, if your first drop is near home you can take the van back with you tonight, just let the transport "
        "office know.",
        "Yes, you can take it home. Delivery vans are parked in the Furnace Lane compound overnight, on charge "
        "[S5]."),
    "reduced-sourdough": Samples(
        "No. Reduced items are never put aside or held behind a counter for a colleague. Once your shift has "
        "finished you can buy it from the shelf like any other customer, if it's still there, at a till served by "
        "another colleague [S2].",
        "Yes, pop it under the counter with your name on it and pay for it on your way out; it's a perk of the job.",
        "Yes, you can put it aside. Reduced items are never put aside or held behind a counter for a colleague "
        "[S2]."),
    "follow-shoplifter": Samples(
        "No. Colleagues never follow, block or touch a suspected shoplifter, and never go into the car park after "
        "one. Note what you saw, the time and which way he went, and radio the duty manager, who'll check the CCTV "
        "and report it to the police [S4].",
        "Yes, you can follow him out to the car park at a safe distance and take down his registration for the "
        "police.",
        "Yes, you can go after him. Colleagues never follow, block or touch a suspected shoplifter [S4]."),
    # ---------------------------------------------------------------- answered "yes"
    "kettle-no-receipt": Samples(
        "Yes. Unused items up to £50 brought back without a receipt within 28 days are refunded onto a gift card at "
        "the current shelf price, so her £24.99 goes on a gift card. Check her driving licence and log the return "
        "on the returns screen [S2].",
        "No, refunds are only given with a till receipt or the app order record; you can offer her an exchange for "
        "the same kettle.",
        "No, you can't refund it. Unused items up to £50 without a receipt are refunded onto a gift card within 28 "
        "days [S2]."),
    "phone-stock-check": Samples(
        "Yes. You can have your own phone on the shop floor and use the Colleague Hub app on it to check stock for "
        "a customer. Just keep calls, messages and social media for your break [S3].",
        "No, personal phones stay in your locker for the whole shift; find a team leader to check the stock for "
        "her.",
        "No, you can't use it. Colleagues may carry their own phone on the shop floor and use the Colleague Hub app "
        "to check stock [S3]."),
    "deli-beard": Samples(
        "Yes. On the deli you can have a beard of any length, as long as it's inside a blue beard snood along with "
        "your hairnet and hat. You'll find the snoods in the dispenser by the deli handwash sink [S1].",
        "No, colleagues on open food counters have to be clean-shaven; only a neatly trimmed moustache is allowed.",
        "No, you can't keep it. Colleagues on the deli may have a beard of any length inside a blue beard snood "
        "[S1]."),
    "prescription-neighbour": Samples(
        "Yes. Anyone may collect a bagged prescription if they can give the patient's full name, address and date "
        "of birth, which she has. Only bags with a red CD sticker for controlled drugs need her photo ID and "
        "signature as well [S4].",
        "No, prescriptions only go to the patient or someone from his own household; a neighbour has to be sent "
        "away.",
        "No, you can't hand it over. Anyone may collect a prescription if they can give the patient's full name, "
        "address and date of birth [S4]."),
    "foodbank-bread": Samples(
        "Yes. Unsold bakery can be donated at the end of each day to the charities on the FoodShare partner list, "
        "St Luke's included. Log it in the Waste app under FoodShare before it leaves the store [S2].",
        "No, nothing goes out to FoodShare charities while the waste audit is on; all the unsold bread goes through "
        "the compactor to be weighed.",
        "No, you can't give it to them. Unsold bakery may be donated at the end of each day to the charities on the "
        "FoodShare partner list [S2]."),
    "split-break": Samples(
        "Yes. The 30-minute paid break can be taken as one break or as two breaks of 15 minutes; agree it with your "
        "team leader at the start of the shift. Neither can fall in your first or last hour, so 8 and 11 are fine "
        "[S3].",
        "No, the 30-minute break is taken in one go and can't be split.",
        "No, you can't split it. The 30-minute paid break can be taken as one break or as two breaks of 15 minutes "
        "[S3]."),
    "carry-into-kitchen": Samples(
        "Yes. When a customer asks, drivers carry the shopping into the home and put the crates down in the kitchen "
        "or the first room, wearing the overshoes from the van. Don't unpack for her, and if you ever feel unsafe "
        "you can stay at the door [S4].",
        "No, deliveries are doorstep only; never step inside a customer's house, it's an insurance thing.",
        "No, you can't go in. When a customer asks, drivers carry the shopping into the home, wearing the overshoes "
        "from the van [S4]."),
    "jake-hand-pallet-truck": Samples(
        "Yes. Colleagues aged 16 and 17 may use a manual hand pallet truck once they've passed the 2-hour course, "
        "for loads of up to 500 kg, so the 300 kg half-pallets are fine. He mustn't touch the powered pallet trucks, "
        "though [S2].",
        "No, under-18s don't use any pallet truck, hand or powered; get an adult to move them.",
        "No, he can't. Colleagues aged 16 and 17 may use a manual hand pallet truck once they've passed the 2-hour "
        "course [S2]."),
    # ---------------------------------------------------------------- open
    "driving-break": Samples(
        "After no more than 4 hours of driving, stop for at least 30 minutes, parked up somewhere safe away from a "
        "customer's address, and log the break on the handheld [S3].",
        "You can do four and a half hours at the wheel, same as the lorry drivers, and then take a 45-minute break."),
    "rotisserie-hot-hold": Samples(
        "By 2.15pm: they're kept at 63°C or hotter and sold within 3 hours of leaving the oven. Anything left then "
        "is wasted through the Waste app; it's never reduced or chilled for sale [S1].",
        "They can stay on until 3.15, four hours after the oven, and then any left are chilled and sold cold from "
        "the deli fridge."),
    "earliest-after-close": Samples(
        "11am on Saturday: rotas leave at least 12 hours between the end of one shift and the start of the next "
        "[S3].",
        "9am: you need at least 10 hours off between shifts."),
    "chilled-totes-dock": Samples(
        "15 minutes at most: chilled totes go on the van within 15 minutes of leaving the walk-in chiller, which is "
        "why they're picked last. Any that miss it go back into the chiller and you tell the shift manager [S2].",
        "Half an hour is fine while you finish your ambient, no problem."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal or old
    ("discount-mum", "No, not even for your mum: the card is only scanned when you're at the till paying [S2].",
     "current"),
    ("follow-shoplifter", "No. Even though Gary's on his lunch, colleagues never follow a suspected shoplifter into "
     "the car park; radio the duty manager instead [S4].", "current"),
    ("ppt-untrained", "Nope, only colleagues with a PPT authorisation drive the powered pallet trucks [S3].",
     "current"),
    ("till-lift-alone", "No, not even in view of the camera: till lifts are done by two colleagues together [S4].",
     "current"),
    ("reduced-sourdough", "No. The Teams post about popping things under the counter with your name on it is "
     "informal; reduced items are never put aside for a colleague [S2].", "surfaced"),
    ("van-home-overnight", "No. The old fleet standard let drivers keep a van at home with the transport manager's "
     "written agreement, but it was replaced: vans stay in the Furnace Lane compound overnight on charge [S5].",
     "surfaced"),
    ("alcohol-neighbour", "According to S2 the order may be left with a neighbour who signs for it; according to S1 "
     "it goes only to an adult at the delivery address.", "confused"),
    ("paracetamol-three-packs", "Yes, customers can buy up to three packs, so you can put all three through.",
     "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("phone-stock-check", "You can. Use the Colleague Hub app on your own phone to check the stock for her [S3].",
     "current"),
    ("split-break", "Sure, split it into two breaks of 15 minutes, agreed with your team leader at the start of the "
     "shift [S3].", "current"),
    ("foodbank-bread", "They can: St Luke's is on the FoodShare partner list, so log it in the Waste app and bag it "
     "up [S2].", "current"),
    ("deli-beard", "Nope, you'll have to be clean-shaven on the deli.", "stale"),
    ("carry-into-kitchen", "Not allowed: it's doorstep only.", "stale"),
    ("prescription-neighbour", "Yes. The pharmacy noticeboard note saying neighbours get sent away is informal; "
     "anyone may collect a bagged prescription with the patient's full name, address and date of birth [S4].",
     "surfaced"),
    ("foodbank-bread", "Yes. The email pausing FoodShare for the waste audit expired at the end of February; unsold "
     "bakery may be donated to the charities on the partner list [S2].", "surfaced"),
    ("kettle-no-receipt", "S1 says refunds are only given with a till receipt, and S2 says items up to £50 without a "
     "receipt are refunded onto a gift card.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("jake-hand-pallet-truck", "Yes, even though he's under 18, he can use the hand pallet truck for loads up to "
     "500 kg now he's passed the course [S2].", "current"),
    ("phone-stock-check", "Yes, even with the handheld dead you can use the Colleague Hub app on your own phone to "
     "check stock [S3].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "boxing-day-pay": (r"time and a half|double time|(?:premium|enhanced|extra|higher|bank holiday) (?:pay|rate)|"
                       r"paid (?:at )?(?:an? )?(?:extra|double|premium|enhanced|higher)|\b1\.5 ?(?:x|times)|"
                       r"£\s?\d+(?:\.\d\d)? (?:an|per|a) hour",
                       "Yes, bank holiday shifts are paid at time and a half."),
    "saturday-delivery-charge": (r"(?:deliver(?:y|ies)|slots?)\b[^.]{0,60}(?:£\s?\d|\bfree\b|\bcosts?\b|"
                                 r"charged? (?:at|£))|£\s?\d[^.]{0,60}\b(?:deliver(?:y|ies)|slots?)\b",
                                 "A Saturday morning delivery slot costs £4.50."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"boxing-day-pay"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"boxing-day-pay"}
