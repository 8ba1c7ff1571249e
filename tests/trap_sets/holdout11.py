"""The eleventh trap set (the staff intranet of a group of veterinary practices): its data and the counts its
description promises; `tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout11_corpus.jsonl` is the intranet of a fictional group of veterinary practices, Fenwick Hale
Veterinary Group, as its staff see it: vets, registered veterinary nurses (RVNs), kennel staff and receptionists at
the Ashby Road, Greyfield and Tanners Green surgeries, and the on-call vets and night team of the Coldharbour
out-of-hours hospital. It holds the controlled drugs procedure, the radiation protection local rules, the
prescribing policy, the out-of-hours procedure, the health and safety procedures (bites, sharps, needlesticks), the
infection control standard, the wildlife casualties policy, the nursing procedures policy, the euthanasia and
aftercare standard, the reception procedures, the home visits procedure, the fees and payment policy, the pharmacy
procedures, the anaesthesia standard and the staff handbook, older versions of some of them, and emails, Teams
posts, wiki notes, staff room noticeboard notes and handover logs. 50 records: 20 current authoritative rules, 10
superseded versions, 13 informal records (11 that never expire, 2 with a `valid_until` in the past) and 7
authoritative records on neighbouring subjects.

`tests/data/holdout11_traps.jsonl` holds 20 questions as practice staff would ask them: 8 yes/no questions answered
"no" today (writing 0.3ml of methadone in the CD register and getting it countersigned later, a nurse holding a
collie for a hip film in the lead gown, the staff discount on Mum's cat, a dachshund puppy on a personal Instagram
with no names, repeat ear drops for a westie seen in March, meeting a regular client at a branch at 1am alone,
carrying on after a cat bite without reporting it, going from the isolation ward to help in kennels after changing)
and 8 answered "yes" where the stale record says no or something stricter (bringing a rescue greyhound to work, a
fox cub hit by a car seen and put to sleep free of charge, an RVN doing a scale and polish with the vet in consults
next door, children of 12 and 9 staying for their dog's euthanasia, a receptionist scanning a stray and ringing its
keeper, two RVNs swapping shifts without a manager, CPD days for an online congress watched from home, a vet doing a
daytime home euthanasia alone) and 4 open ones (what a weekday-night out-of-hours consult costs, what to do after a
needlestick, what to do with vaccines from a fridge reading 11°C, how long a body is kept while the owner decides on
cremation). Each names 3-5 records in retrieval rank order: the current authoritative rule (`gold`), 1-2 stale
records of its conflict group (`topic`), and 1-2 records on other subjects. In 10 questions the stale record named
`trap` is an informal record with no `valid_until` (in 9 a superseded version, in 1 an expired email). The gold
record sits at seat 1 in 3 questions, 2 in 7, 3 in 5, 4 in 4 and 5 in 1; the trap is at seat 1 in 15 and comes
before the gold record in 16.

`tests/data/unanswerable_holdout11_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout11_traps.jsonl --corpus tests/data/holdout11_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout11")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=10, superseded_traps=9,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=10, other_authoritative=7, gold_seats=(3, 7, 5, 4, 1), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "methadone-sign-later": Samples(
        "No. A Schedule 2 entry has to be witnessed at the time by a second vet or RVN, who checks the drug and the "
        "dose and countersigns it there and then, whatever the amount. Wait for one of the nurses before you draw it "
        "up [S3].",
        "Yes, for tiny amounts under 1ml just write it in yourself and get a nurse to initial it before the end of "
        "the day.",
        "Yes, you can write it in. Every Schedule 2 entry is witnessed at the time by a second vet or RVN who "
        "countersigns it [S3]."),
    "collie-xray-hold": Samples(
        "No. Nobody holds or restrains an animal for an X-ray exposure, whatever protective clothing they're wearing. "
        "Position him with sandbags, foam wedges and ties, or sedate him if he won't keep still, and everyone leaves "
        "the controlled area before the exposure [S2].",
        "Yes, Jess can hold him as she's over 18 and not pregnant, as long as she keeps her hands out of the primary "
        "beam.",
        "Yes, she can. Nobody holds an animal for an exposure, whatever they wear; use sandbags and wedges or sedate "
        "him [S2]."),
    "mums-cat-discount": Samples(
        "No. The staff discount only covers up to three pets registered in your own name and living at your own "
        "address; relatives' pets aren't covered, so Pickle's booster is charged at the normal price [S1].",
        "Yes, the discount covers immediate family, so your mum's cat counts as long as you're under five pets.",
        "Yes, you can. The 20% discount is for up to three pets registered in your own name at your own address "
        "[S1]."),
    "dachshund-instagram": Samples(
        "No. Staff never post photos of patients on their personal social media, even with the owner's name and "
        "details left out. If she'd make a great post, ask the marketing team: they can put it on the group's own "
        "pages with the owner's written consent [S4].",
        "Yes, that's fine as long as you don't tag the practice or mention the owner's name or where they live.",
        "Yes, you can post it. Staff never post patient photos on their personal social media accounts [S4]."),
    "otitis-repeat-drops": Samples(
        "No. Antibiotic ear drops are only prescribed after a vet has examined Bonnie for this flare-up; a repeat "
        "isn't issued on the strength of the March consult, however recent. Offer Mrs Pearce an appointment "
        "instead [S2].",
        "Yes, she was seen for the same condition within the last 3 months, so a repeat can be issued without a new "
        "examination.",
        "Yes, you can. Antibiotics are only prescribed after a vet has examined the animal for the current problem "
        "[S2]."),
    "night-consult-greyfield": Samples(
        "No. Between 10pm and 7am clients are only seen at the Coldharbour out-of-hours hospital, never at a branch, "
        "with a nurse or second vet in the building, whether or not you know the client. Send them to "
        "Coldharbour [S5].",
        "Yes, it's a client you know, so it's fine to meet them at Greyfield rather than sending them all the way "
        "to Coldharbour; just text the duty nurse.",
        "Yes, you can meet them. Night consultations happen only at Coldharbour, with a nurse or second vet in the "
        "building [S5]."),
    "cat-bite-carry-on": Samples(
        "No. Every bite that breaks the skin goes in SafeLog before the end of your shift, however minor it looks, "
        "and because it's a cat bite you need to be seen at a minor injuries unit or by a GP today, as they so "
        "often get infected [S3].",
        "Yes, bites only need reporting in the accident book if they need medical treatment or you take time off "
        "work, so clean it from the first aid kit and carry on.",
        "Yes, you can carry on. Every bite that breaks the skin is reported in SafeLog and a cat bite is seen by a "
        "GP the same day [S3]."),
    "iso-help-kennels": Samples(
        "No. If you're allocated to isolation you stay there for the rest of your shift and don't work in the main "
        "kennels that day. Changing and washing your hands doesn't change that: you don't handle other in-patients "
        "until your next shift [S2].",
        "Yes, that's fine if you're quick about it: gown and gloves off at the door, wash your hands and crack on.",
        "Yes, you can go. Staff on isolation stay there for the rest of the shift and don't go on to the main "
        "kennels [S2]."),
    # ---------------------------------------------------------------- answered "yes"
    "greyhound-to-work": Samples(
        "Yes. Staff can bring one dog of their own to work at any branch, as she's registered with the group and "
        "vaccinated. Keep her in the staff room or an allocated kennel and out of the clinical areas; the branch "
        "manager can ask you to leave her at home if she causes problems [S4].",
        "No, staff dogs aren't allowed on site, not even in the staff room, because the insurance won't cover it.",
        "No, you can't. Staff may bring one dog of their own to work, kept in the staff room or an allocated kennel "
        "[S4]."),
    "fox-cub-free": Samples(
        "Yes. Injured wildlife brought in by the public is assessed by the duty vet and given first aid, pain relief "
        "or euthanasia free of charge, and she's never asked to pay. If the cub can be saved, it goes to Oakfield "
        "Wildlife Rescue once stable [S2].",
        "No, we don't treat wildlife here: give her the number for Oakfield Wildlife Rescue, and if she wants it put "
        "to sleep here the standard euthanasia fee is charged.",
        "No, we can't. Wildlife brought in by the public is seen by the duty vet and put to sleep if needed free of "
        "charge [S2]."),
    "rvn-scale-polish": Samples(
        "Yes. An RVN can do a scale and polish under general anaesthetic without a vet in the room, because Jonah has "
        "examined and charted the mouth, as long as he stays on the premises throughout. If an extraction turns out "
        "to be needed, that's for the vet [S1].",
        "No, the vet has to stay in theatre for the whole dental, so Jonah can't be in consults.",
        "No, you can't. An RVN may do the scale and polish without a vet in the room as long as a vet is on the "
        "premises [S1]."),
    "children-at-euthanasia": Samples(
        "Yes. Owners can have whoever they wish with them, children of any age included, as long as the adult owner "
        "agrees, so if their mum's happy the kids can stay. The vet will explain beforehand what will happen, "
        "including that his eyes may stay open [S3].",
        "No, under-16s don't stay in the room; they can say goodbye beforehand and wait in the family room with "
        "another adult.",
        "No, they can't. Owners may have children of any age with them during the euthanasia if the adult owner "
        "agrees [S3]."),
    "reception-chip-scan": Samples(
        "Yes. Any member of staff, receptionists included, can scan a stray for a chip and phone the registered "
        "keeper directly. If you can't reach the keeper within 2 hours, or there's no chip, call the council's dog "
        "warden to collect it [S3].",
        "No, strays are scanned by the vet on duty only and reception doesn't ring keepers: pass it to the council "
        "dog warden.",
        "No, you can't. Any member of staff, receptionists included, may scan a stray and phone the registered "
        "keeper [S3]."),
    "swap-saturday-priya": Samples(
        "Yes. You're both RVNs, so you can swap between yourselves without asking a manager; you both just need to "
        "log the swap in RotaMate at least 48 hours before the first swapped shift [S3].",
        "No, every swap has to be signed off by the practice manager, even if you've agreed it between you, so "
        "email Karen.",
        "No, you can't. Staff in the same role may swap shifts without asking a manager if both log it in RotaMate "
        "[S3]."),
    "online-derm-congress": Samples(
        "Yes. You get 5 paid CPD days a year and they can be used for online congresses too, including live "
        "sessions watched from home. Book the days with your branch manager at least 6 weeks ahead [S2].",
        "No, CPD days are only for courses you actually attend; online events you do in your own time.",
        "No, you can't. CPD days can be used for in-person or online courses, including live sessions from home "
        "[S2]."),
    "home-euthanasia-alone": Samples(
        "Yes. A vet can make a daytime home visit, home euthanasia included, on their own. Text the branch when you "
        "arrive and again when you leave; it would need two staff only after 6pm or if the address were flagged "
        "[S4].",
        "No, every home visit has to be done by a vet and a nurse together, home euthanasias included.",
        "No, you can't. A vet may do a daytime home visit on their own, texting the branch on arrival and on "
        "leaving [S4]."),
    # ---------------------------------------------------------------- open
    "rabbit-ooh-fee": Samples(
        "It's £165 for a weekday evening or night consultation at Coldharbour (it would be £220 on a Sunday or bank "
        "holiday), and it's paid when she arrives, before the consultation [S2].",
        "It's £140 whatever time it is, and she'll be invoiced after the visit along with any treatment."),
    "lepto-needlestick": Samples(
        "Let it bleed without squeezing, wash it under running water with soap, and ring the Medwise occupational "
        "health line straight away. Then report it in SafeLog within 24 hours, noting it was the lepto vaccine "
        "[S2].",
        "Give it a squeeze, stick a plaster on and write it in the red accident book, then tell the head nurse."),
    "fridge-eleven-degrees": Samples(
        "Leave them in the fridge, quarantined with a 'Do not use' label, and log the reading in MedTrack. The "
        "pharmacy lead decides with the manufacturers whether they can be used, and nobody uses them until then "
        "[S4].",
        "Move them into the drugs fridge; if the vaccine fridge is back in range by tomorrow they're fine to use."),
    "rolo-freezer-days": Samples(
        "Up to 14 days. Reception sends her a reminder at 7 days, and if she still hasn't decided after 14 days "
        "Rolo goes for communal cremation at no charge to her [S1].",
        "Up to 30 days, then he goes for communal cremation, charged to her account."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal or old
    ("methadone-sign-later", "No, not even for 0.3ml: the entry is witnessed at the time and countersigned there and "
     "then [S3].", "current"),
    ("otitis-repeat-drops", "No. Even though she was seen in March, antibiotics need a vet to examine Bonnie for the "
     "current problem, so book her an appointment [S2].", "current"),
    ("iso-help-kennels", "Nope, you stay on isolation for the rest of your shift [S2].", "current"),
    ("night-consult-greyfield", "No, not even for a regular client: between 10pm and 7am clients are seen only at "
     "Coldharbour [S5].", "current"),
    ("dachshund-instagram", "No. The wiki note saying pics are fine as long as you don't tag the practice is "
     "informal; staff never post patient photos on their personal social media [S4].", "surfaced"),
    ("collie-xray-hold", "No. The old local rules let staff over 18 hold an animal in a lead apron, but they were "
     "replaced: nobody holds an animal for an exposure; use sandbags and wedges [S2].", "surfaced"),
    ("mums-cat-discount", "According to S2 the discount covers immediate family; according to S1 it covers only pets "
     "registered in your own name at your own address.", "confused"),
    ("cat-bite-carry-on", "Yes, only if it needs treatment does it go in the accident book.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("reception-chip-scan", "You can. Any member of staff, receptionists included, may scan it and phone the "
     "registered keeper directly [S3].", "current"),
    ("swap-saturday-priya", "Sure, log it in RotaMate at least 48 hours before the first swapped shift [S3].",
     "current"),
    ("fox-cub-free", "We can: the duty vet sees it and puts it to sleep if needed, free of charge [S2].", "current"),
    ("children-at-euthanasia", "Nope, under-16s wait in the family room.", "stale"),
    ("online-derm-congress", "Not allowed: online events are done in your own time.", "stale"),
    ("greyhound-to-work", "Yes. The noticeboard note saying no staff dogs on site is informal; staff may bring one dog "
     "of their own, kept in the staff room or an allocated kennel [S4].", "surfaced"),
    ("home-euthanasia-alone", "Yes. The old procedure sent a vet and a nurse on every home visit, but it was "
     "superseded: a vet may do a daytime home euthanasia alone, texting the branch on arrival [S4].", "surfaced"),
    ("rvn-scale-polish", "S2 says the vet has to stay in theatre for the whole dental, and S1 says an RVN can do it "
     "with the vet on the premises.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("greyhound-to-work", "Yes, even though it's the staff room you want, she can stay there: staff may bring one dog "
     "of their own [S4].", "current"),
    ("swap-saturday-priya", "Yes, even without going to a manager you can swap, as long as you both log it in RotaMate "
     "[S3].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "christmas-night-extra-pay": (r"christmas|double (?:time|pay|rate)|time and a half|(?:extra|additional|enhanced|"
                                  r"higher|holiday) (?:payment|allowance|pay|rate)|premium|day in lieu",
                                  "Yes, Christmas Day shifts are paid at double time."),
    "kitten-microchip-price": (r"(?:microchip(?:ping)?|chip)[^.]{0,60}(?:£\s?\d|costs?\b|charged? at|free of charge)|"
                               r"£\s?\d[^.]{0,60}\b(?:microchip|chip)",
                               "Microchipping is £25, or £15 if done at the same visit as the vaccination."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"christmas-night-extra-pay"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"christmas-night-extra-pay"}
