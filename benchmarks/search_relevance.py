"""A small labelled relevance set: records, and queries with the records they should find.

Keyword queries share words with their targets; paraphrase queries share (almost) none, so
only the semantic half can find them.
"""

from __future__ import annotations

RECORDS: dict[str, tuple[str, str]] = {
    "c1": ("Acme Anvils", "Supplier of anvils, rocket skates and other hardware"),
    "c2": ("Borealis Shipping", "Cold-chain freight forwarding between Oslo and Rotterdam"),
    "c3": ("Sunny Bakery", "Sourdough bread, pastries and wedding cakes"),
    "c4": ("Helix Biotech", "Clinical trials for a new diabetes treatment"),
    "c5": ("Northwind Legal", "Law firm handling contracts and intellectual property disputes"),
    "c6": ("Pixel Forge", "Video game studio building a fantasy role-playing game"),
    "c7": ("GreenLeaf Energy", "Installs solar panels and home batteries"),
    "c8": ("Atlas Realty", "Sells and rents apartments in the city centre"),
    "c9": ("Blue Harbor Hotel", "Seaside hotel with conference rooms and a spa"),
    "c10": ("Quantum Ledger", "Accounting software for small businesses: invoices and payroll"),
    "t1": ("Book flights for the Berlin trade fair", "Two tickets, return on Friday"),
    "t2": ("Renew the office printer lease", "Contract ends in March"),
    "t3": ("Prepare the quarterly revenue report", "Numbers for the board meeting"),
    "t4": ("Hire a senior backend engineer", "Python and PostgreSQL experience"),
    "t5": ("Fix the leaking roof in the warehouse", "Call a contractor before the rain"),
    "t6": ("Plan the team offsite", "Somewhere in the mountains with hiking"),
    "t7": ("Reset the admin password for the CRM", "Locked out after three failed logins"),
    "t8": ("Order new laptops for the sales team", "Ten machines with 16 GB memory"),
    "t9": ("Send the customer satisfaction survey", "Ask clients how happy they are with support"),
    "t10": ("Renegotiate the cloud hosting bill", "Our AWS costs doubled this year"),
    "d1": ("Enterprise licence for Globex", "Three-year deal, 500 seats"),
    "d2": ("Catering contract with the city council", "Lunches for municipal schools"),
    "d3": ("Website redesign for a dental clinic", "New booking page for patients"),
    "d4": ("Security audit for a bank", "Penetration testing of online banking"),
    "d5": ("Fleet of electric delivery vans", "Twenty vans with charging stations"),
    "n1": ("Dog walking schedule", "Walk the dogs twice a day in the park"),
    "n2": ("Recipe: tomato soup", "Tomatoes, onions, garlic and basil"),
    "n3": ("Marathon training plan", "Long runs on Sundays, intervals on Tuesdays"),
    "n4": ("Guitar lessons", "Learn chords and strumming patterns"),
    "n5": ("Garden tasks", "Prune the roses and plant tulip bulbs"),
}

#: (query, kind, expected record ids)
QUERIES: list[tuple[str, str, set[str]]] = [
    ("anvils", "keyword", {"c1"}),
    ("freight forwarding", "keyword", {"c2"}),
    ("sourdough", "keyword", {"c3"}),
    ("printer lease", "keyword", {"t2"}),
    ("revenue report", "keyword", {"t3"}),
    ("backend engineer", "keyword", {"t4"}),
    ("admin password", "keyword", {"t7"}),
    ("laptops", "keyword", {"t8"}),
    ("security audit", "keyword", {"d4"}),
    ("tomato soup", "keyword", {"n2"}),
    ("solar panels", "keyword", {"c7"}),
    ("invoices payroll", "keyword", {"c10"}),
    ("medicine research for blood sugar disease", "paraphrase", {"c4"}),
    ("attorneys for patent disagreements", "paraphrase", {"c5"}),
    ("company that makes computer games", "paraphrase", {"c6"}),
    ("renewable power for houses", "paraphrase", {"c7", "d5"}),
    ("property agency for flats downtown", "paraphrase", {"c8"}),
    ("arrange travel to the exhibition in Germany", "paraphrase", {"t1"}),
    ("repair water damage to the building", "paraphrase", {"t5"}),
    ("team retreat in the alps", "paraphrase", {"t6"}),
    ("I can't log in to the customer system", "paraphrase", {"t7"}),
    ("find out if clients like our service", "paraphrase", {"t9"}),
    ("reduce server infrastructure spending", "paraphrase", {"t10"}),
    ("food supply for public schools", "paraphrase", {"d2"}),
    ("hacking test for a financial institution", "paraphrase", {"d4"}),
    ("training for a long distance running race", "paraphrase", {"n3"}),
    ("learning to play music", "paraphrase", {"n4"}),
    ("where to stay by the sea with meeting space", "paraphrase", {"c9"}),
]
