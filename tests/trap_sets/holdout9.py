"""The ninth trap set (the staff intranet of a city public library service): its data and the counts its description
promises; `tests/eval/test_balanced_sets.py` checks them.

`tests/data/holdout9_corpus.jsonl` is the intranet of a fictional city library service, Harwick Libraries, as its
staff see it: library assistants and branch managers at Central, Eastgate, Millbrook and Riverside, the crew of the
Bookbus mobile library, the Workshop makerspace (3D printers and a laser cutter), the local studies searchroom and
its Dock Street store, children's and teen events, the public computers and Wi-Fi, room hire, volunteers, and
security and facilities. It holds the makerspace safety rules, the safeguarding policy, the local studies searchroom
rules, the IT and public computer policy, the cash handling procedure, the lone working policy, the room hire terms,
the customer behaviour policy, the volunteer policy, the health and safety procedures and the staff handbook, older
versions of some of them, and emails, Teams posts, wiki notes, staff noticeboard notes and shift handover logs. 50
records: 20 current authoritative rules, 10 superseded versions, 13 informal records (11 that never expire, 2 with a
`valid_until` in the past) and 7 authoritative records on neighbouring subjects.

`tests/data/holdout9_traps.jsonl` holds 20 questions as staff would ask them: 8 yes/no questions answered "no" today
(a Workshop regular leaving the laser cutter engraving while he goes for a coffee, an 8-year-old left reading while
his mum goes round the market, a researcher taking notes with a biro in the searchroom, a second guest pass for a man
with no library card, cashing up alone at a lone close, taking the Bookbus out single-crewed, posting a teen event's
group photo because the teenagers said yes, a knitting group paying cash for a room when they turn up) and 8
answered "yes" where the stale record says no or something stricter (a sandwich and a lidded coffee at the study
tables, a 13-year-old on a 3D printer with her inducted dad, a CV on a memory stick at a public PC, a 15-year-old
volunteering on the Summer Reading Challenge, phone photos of council minute books in the searchroom, the senior
library assistant in charge asking a swearing man to leave for the day, a tourist with no library card on the Wi-Fi,
a £50 note at the counter) and 4 open ones (how much notice the Dock Street store needs, what to do when a child goes
missing, the refund on a room cancelled 6 working days ahead, how to report a customer's trip on a mat). Each names
3-5 records in retrieval rank order: the current authoritative rule (`gold`), 1-2 stale records of its conflict
group (`topic`), and 1-2 records on other subjects. In 10 questions the stale record named `trap` is an informal
record with no `valid_until` (in 9 a superseded version, in 1 an expired email). The gold record sits at seat 1 in 3
questions, 2 in 6, 3 in 6, 4 in 3 and 5 in 2; the trap is at seat 1 in 15 and comes before the gold record in 16.

`tests/data/unanswerable_holdout9_traps.jsonl` holds 2 questions no record answers (1 of them yes/no), each
retrieving a neighbouring value a model could transplant; 1 of them retrieves a conflict group with a current
authoritative member. (The loader takes an unanswerable file; this set is about its answerable questions, so the
file is kept small.)

Written before any model answered them, without reading the prompt wording (render/, passes/, citations/) or any
model answer (docs/eval-results/). Run them with
`evidencepack eval traps --traps tests/data/holdout9_traps.jsonl --corpus tests/data/holdout9_corpus.jsonl ...`.
"""

from __future__ import annotations

from trap_set_checks import BalancedShape, Samples, TopicSet

SET = TopicSet.named("holdout9")
SHAPE = BalancedShape(questions=20, per_verdict=8, open=4, never_expiring_informal_traps=10, superseded_traps=9,
                      expired_informal_traps=1, corpus=(50, 50), informal=13, never_expiring_informal=11,
                      superseded=10, other_authoritative=7, gold_seats=(3, 6, 6, 3, 2), trap_at_seat_1=15,
                      trap_before_gold=16, no_seats_vary=True, unanswerable=2,
                      unanswerable_yes_no=1)


# ---------------------------------------------------------------- hand-written answers


SAMPLES = {
    # ---------------------------------------------------------------- answered "no"
    "laser-coffee-break": Samples(
        "No. The laser cutter is never left unattended while it's running, however short the job, so he stays "
        "beside it until it's finished. The fire blanket and CO2 extinguisher are right next to it [S3].",
        "Yes, short jobs are fine to leave for 10-15 minutes as long as the extraction is on; he just tells "
        "whoever's on the Workshop desk.",
        "Yes, he can pop out. The laser cutter is never left unattended while it's running, however short the job "
        "[S3]."),
    "child-alone-market": Samples(
        "No. Children under 10 have to be with a parent, carer or another responsible adult aged 16 or over at all "
        "times, the children's library included, so he goes to the market with her [S2].",
        "Yes, children aged 8 and over can use the library on their own, so he can stay and read.",
        "Yes, he can stay. Children under 10 are accompanied at all times by a responsible adult aged 16 or over "
        "[S2]."),
    "searchroom-biro": Samples(
        "No. Only pencils are allowed in the searchroom while originals are out, ballpoints included, so ask him to "
        "put the biro in his locker and lend him a pencil from the desk [S4].",
        "Yes, biros are fine; it's only fountain pens, gel pens and felt tips that aren't allowed.",
        "Yes, you can let him. Only pencils are used in the searchroom, and pens of any kind, ballpoints included, "
        "go in the lockers [S4]."),
    "guest-pass-second-hour": Samples(
        "No. Guest passes are for 1 hour a day at most and a guest session can't be extended. If he wants longer, "
        "he can join the library at the counter with proof of address, and members can book up to 3 hours a day "
        "[S5].",
        "Yes, guest passes run for up to 2 hours, so you can give him a second pass if no members are waiting.",
        "Yes, you can give him one. Guest passes are for 1 hour a day and a guest session can't be extended; he can "
        "join the library with proof of address for up to 3 hours [S5]."),
    "lone-close-cashing-up": Samples(
        "No. Takings are always counted by two members of staff together. As you're on your own, put them uncounted "
        "in a sealed bag in the safe, write the bag number in the handover log, and they get counted in the morning "
        "[S1].",
        "Yes, count it yourself, sign the banking sheet twice and write 'lone close' next to it.",
        "Yes, you can cash up. Till takings are always counted by two members of staff together; on your own, they "
        "go uncounted into a sealed bag in the safe [S1]."),
    "bookbus-single-crew": Samples(
        "No. The mobile library never goes out with fewer than two members of staff on board, whatever the route. "
        "If nobody else can be found, tomorrow's run is cancelled and the duty manager puts a notice on the website "
        "and at each stop [S2].",
        "Yes, at rural stops one member of staff can run the Bookbus, as long as you phone Central to check in every "
        "2 hours.",
        "Yes, you can go. The mobile library never goes out with fewer than two members of staff on board; without "
        "a second person the run is cancelled [S2]."),
    "teen-night-instagram": Samples(
        "No. Photos of under-18s are only published with a photo consent form signed by each one's parent or carer; "
        "their own agreement isn't enough, whatever their age [S3].",
        "Yes, 13 and overs can agree to photos themselves, so as long as you asked them you can post it.",
        "Yes, you can post it. Photos of under-18s are only published with a consent form signed by their parent or "
        "carer; their own agreement isn't enough [S3]."),
    "knitting-group-cash": Samples(
        "No. Room hire is paid in full by card through the online booking system at least 5 working days before the "
        "booking, and the room isn't held until it's paid, so Saturday is already too late. Staff don't take cash "
        "for rooms at the counter [S2].",
        "Yes, they can pay cash at the counter when they arrive; just pencil them in.",
        "Yes, you can put them in. Rooms are paid in full by card online at least 5 working days ahead and aren't "
        "held until payment clears [S2]."),
    # ---------------------------------------------------------------- answered "yes"
    "sandwich-study-tables": Samples(
        "Yes. Cold snacks like a sandwich, and drinks in a cup with a lid, are fine anywhere in the library except "
        "the searchroom, the Workshop and the public computer areas. It's only hot food, takeaways and alcohol that "
        "aren't allowed [S4].",
        "No, there's no eating anywhere in the library; ask him nicely to finish it in the foyer.",
        "No, he can't. Customers may eat cold snacks and drink from cups with lids anywhere except the searchroom, "
        "the Workshop and the public computer areas [S4]."),
    "keyring-3d-print": Samples(
        "Yes. Young people aged 11 to 15 can use the 3D printers as long as a parent or carer who has done the "
        "Workshop induction stays with them for the whole session, so she's fine with her dad there [S2].",
        "No, the 3D printers are for members aged 16 and over only.",
        "No, she can't. Young people aged 11 to 15 may use the 3D printers with a parent or carer who has completed "
        "the induction staying for the whole session [S2]."),
    "cv-memory-stick": Samples(
        "Yes. Customers can use their own USB memory sticks on the public computers to open and print files. The "
        "stick is scanned for viruses when it goes in, and anything saved on the PC is wiped when his session ends "
        "[S3].",
        "No, the USB ports on the public computers are switched off; he'll have to email his CV to himself.",
        "No, he can't. Customers may plug their own USB sticks into the public computers, and each one is scanned "
        "for viruses [S3]."),
    "dofe-volunteer-15": Samples(
        "Yes. Volunteers aged 14 to 17 can help with the Summer Reading Challenge once a parent or carer has signed "
        "the young volunteer consent form. She'll always work alongside a member of staff [S1].",
        "No, we can't take volunteers under 18 because of the council's insurance, so she'll have to be turned "
        "down.",
        "No, we can't. Young volunteers aged 14 to 17 may help with the Summer Reading Challenge once a parent has "
        "signed the consent form [S1]."),
    "minute-books-phone-photos": Samples(
        "Yes. Visitors can photograph documents on their own phone for their own research, without flash, once "
        "they've signed the photography declaration at the searchroom desk. Anything marked 'no copying' is off "
        "limits [S3].",
        "No, visitors can't photograph archive material; she can order copies from staff at 50p a page.",
        "No, she can't. Visitors may photograph documents on a phone for their own research, without flash, after "
        "signing the photography declaration [S3]."),
    "swearing-customer-in-charge": Samples(
        "Yes. As the member of staff in charge this afternoon, whatever your grade, you can ask him to leave for the "
        "rest of the day. Any longer ban is for the area manager to decide, and write it up on IRIS today [S2].",
        "No, only the branch manager can ask a customer to leave; ring the area manager and wait for them to "
        "decide.",
        "No, you can't. The member of staff in charge at the time, whatever their grade, may ask an abusive "
        "customer to leave for the rest of the day [S2]."),
    "tourist-wifi": Samples(
        "Yes. The HarwickLibraries-Free Wi-Fi is open to anyone, with or without a library card; she just accepts "
        "the terms on the sign-in page [S5].",
        "No, the Wi-Fi is for library members only; they log in with their card number and PIN.",
        "No, she can't. The HarwickLibraries-Free Wi-Fi is open to anyone, with or without a library card, once "
        "they accept the terms on the sign-in page [S5]."),
    "fifty-pound-note": Samples(
        "Yes. All notes, £50 notes included, are accepted at the counter once you've checked it with the UV pen in "
        "the till drawer. If it fails the check, hand it back politely and note it in the cash log [S3].",
        "No, we don't take £50 notes at Eastgate because of fakes; suggest she goes to the post office.",
        "No, you can't. All notes, £50 notes included, are accepted once they've been checked with the UV pen in "
        "the till drawer [S3]."),
    # ---------------------------------------------------------------- open
    "dock-street-registers": Samples(
        "At least 3 working days before her visit. Order them through the online catalogue and they'll be ready in "
        "the searchroom from 10am on Saturday [S3].",
        "24 hours' notice is plenty; just email the store with the references, as the van goes over every "
        "morning."),
    "missing-five-year-old": Samples(
        "Put out a Code Amber call on the radio straight away. Staff go to every public exit while others search "
        "the building, toilets and lifts included, and if he hasn't been found within 10 minutes the duty manager "
        "rings 999 [S1].",
        "Search the library for up to 20 minutes first, and if he still hasn't turned up the duty manager phones "
        "the police on 101."),
    "walking-group-refund": Samples(
        "Half, so £32. They're cancelling 6 working days before, and cancellations 2 to 9 working days ahead are "
        "refunded at 50%; they'd have needed to cancel at least 10 working days before to get a full refund [S4].",
        "All £64, because they've cancelled more than 48 hours before the booking."),
    "tripped-on-mat": Samples(
        "Report it on the council's AssureNet system within 24 hours, as you dealt with it. Tell the duty manager "
        "now, and photograph the mat before anyone fixes it [S2].",
        "Write it up in the blue accident book behind the counter, and the branch manager sends the page to the "
        "area office on Friday."),
}


# Other shapes a model writes: other openings, the stale rule negated or marked as outdated, both rules with nothing
# saying which holds. (question id, answer, verdict)
SHAPES = [
    # "no" questions: the stale condition ruled out, a concessive "even", the stale rule marked as informal
    ("guest-pass-second-hour", "No, one hour is the limit: guest passes are 1 hour a day and can't be extended "
     "[S5].", "current"),
    ("searchroom-biro", "No. Even if staff have let him before, only pencils are used in the searchroom [S4].",
     "current"),
    ("child-alone-market", "No, not even for half an hour: children under 10 stay with a responsible adult at all "
     "times [S2].", "current"),
    ("laser-coffee-break", "Nope, he stays with it: the laser cutter is never left unattended [S3].", "current"),
    ("teen-night-instagram", "Nope. Their own agreement isn't enough; it needs a consent form signed by a parent or "
     "carer [S3].", "current"),
    ("lone-close-cashing-up", "No. The handover log note about a lone close is informal; takings are counted by two "
     "members of staff, so bag them uncounted in the safe [S1].", "surfaced"),
    ("bookbus-single-crew", "No. The old policy let one member of staff run rural stops with a check-in every 2 "
     "hours, but it was replaced: the Bookbus never goes out with fewer than two members of staff [S2].",
     "surfaced"),
    ("knitting-group-cash", "According to S3 they can pay in cash at the counter when they arrive; according to S2 "
     "rooms are paid in full by card online 5 working days ahead.", "confused"),
    ("searchroom-biro", "Yes, biros are fine.", "stale"),
    # "yes" questions: other openings for "yes" and for "no", the stale rule marked as outdated or only reported
    ("cv-memory-stick", "He can. His stick is scanned for viruses when it goes in [S3].", "current"),
    ("tourist-wifi", "Sure, the Wi-Fi is open to anyone, with or without a library card [S5].", "current"),
    ("keyring-3d-print", "She can, as long as her dad stays with her for the whole session [S2].", "current"),
    ("dofe-volunteer-15", "Nope, no volunteers under 18.", "stale"),
    ("fifty-pound-note", "Not allowed: there are too many fakes going round.", "stale"),
    ("minute-books-phone-photos", "Yes. The old policy said visitors couldn't photograph archive material and had to "
     "order copies at 50p a page, but it was superseded: she can take photos without flash once she's signed the "
     "declaration [S3].", "surfaced"),
    ("swearing-customer-in-charge", "Yes. The wiki note saying only the branch manager can ask someone to leave is "
     "informal; as the person in charge you can ask him to leave for the rest of the day [S2].", "surfaced"),
    ("sandwich-study-tables", "S1 says there's no eating anywhere in the library, and S4 says cold snacks and drinks "
     "with lids are fine.", "confused"),
    # a "yes" answer concedes the question's premise without a negator; the premise is in no stale pattern
    ("keyring-3d-print", "Yes, even though she's only 13, she can use the 3D printer with her dad staying for the "
     "whole session [S2].", "current"),
    ("tourist-wifi", "Yes, even though she hasn't got a library card, she can use the Wi-Fi once she accepts the "
     "terms on the sign-in page [S5].", "current"),
]


# ---------------------------------------------------------------- unanswerable questions

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "staff-room-discount": (r"discount|\d+ ?% off|(?:staff|employee) (?:rate|price)s?|half price|reduced "
                            r"(?:rate|price)",
                            "Yes, staff get 20% off room hire."),
    "laser-cutter-price": (r"(?:laser|cutter|cutting|engrav\w*)[^.]{0,60}(?:£\s?\d|\b\d+ ?p\b|pence|per minute|"
                           r"a minute|an hour|per hour|free of charge|no charge)|(?:£\s?\d|\b\d+ ?p\b|pence)[^.]{0,60}"
                           r"(?:laser|cutter|cutting|engrav\w*)",
                           "Laser cutting costs 20p a minute, so his job comes to £4."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"staff-room-discount"}
# The yes/no ones: a bare verdict is an answer the reader acts on.
U_YES_NO = {"staff-room-discount"}
