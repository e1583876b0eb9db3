"""The demo's main session, "Mgły nad Czarnym Brodem" (forum1000): its characters, built
from seed 000's examples 1–4, its plan as first written, returned and revised, and the
posts that open it."""

SESSION_TITLE = "Mgły nad Czarnym Brodem"

# Built from seed 000's examples 1–4.
CHARACTERS = [
    {
        "owner": "gracz",
        "name": "Lirael",
        "grammatical_gender": "feminine",
        "description": "Bardka z południa. Przykład 1: Uwodzenie z Seksapilem i Przystojnym.",
        "hp": (90, 100),
        "attributes": [550, 600, 640, 400, 500, 700, 520, 480],
        "skills": {"Uwodzenie": 1, "Przekupstwo": 2, "Targowanie": 1},
        "traits": ["Seksapil", "Przystojny", "Dobry Wzrok"],
    },
    {
        "owner": "gracz2",
        "name": "Borys",
        "description": "Najemnik. Przykład 2: Torturowanie idzie w parze z Precyzyjnym, "
        "nie z Wyczuciem kłamstwa.",
        "hp": (72, 120),
        "attributes": [480, 500, 560, 720, 600, 380, 450, 520],
        "skills": {"Torturowanie": 2, "Otwieranie zamków": 3, "Zastraszanie": 2},
        "traits": ["Precyzyjny", "Wyczucie kłamstwa"],
        "effects": [("wound", "Cięcie przez ramię po zasadzce na trakcie.")],
    },
    {
        "owner": "gracz3",
        "name": "Mira",
        "grammatical_gender": "feminine",
        "description": "Uczona i medyczka. Przykład 3: Błyskotliwość z Geniuszem zamiast "
        "Dowodzenia.",
        "hp": (80, 80),
        "attributes": [600, 520, 500, 380, 620, 550, 650, 640],
        "skills": {"Błyskotliwość": 2, "Dowodzenie": 1, "Leczenie ran": 2, "Leczenie chorób": 1},
        "traits": ["Geniusz", "Krasomówca"],
        "potions": [(2, "Przywraca 30 PŻ; nie leczy chorób.")],
        "items": {"Koń wierzchowy": 1},  # RULES 1.5: she may ride, Szybkość/10 m per action
    },
]

POSTS = [
    (
        "gm",
        None,
        "Mgła wisi nisko nad brodem. Przewoźnik zniknął, a na brzegu ktoś zostawił "
        "**wywróconą łódź** i ślady prowadzące do starej strażnicy.",
        "Tura 1: opiszcie, co robicie. Krytyki włączone, NPC mają stałe modyfikatory.",
    ),
    (
        "gracz",
        "Lirael",
        "Lirael poprawia płaszcz i z uśmiechem podchodzi do rybaka, który udaje, "
        "że niczego nie widział. *Może wdzięk otworzy mu usta.*",
        "Proszę o rzut na Uwodzenie z Seksapilem i Przystojnym.",
    ),
    (
        "gracz2",
        "Borys",
        "Borys klęka przy zamkniętej skrzyni na łodzi i wyjmuje wytrychy.",
        "Otwieranie zamków z Precyzyjnym.",
    ),
    (
        "gracz3",
        "Mira",
        "Mira ogląda ranę Borysa. — Nie ruszaj się, to tylko chwila.",
        "Leczenie ran na Borysie.",
    ),
]

PLAN_FIRST = """\
Drużyna eskortuje wóz **starego kupca** przez bród na Czarnej Rzece. We mgle czekają wilki.

1. Targi z kupcem o zapłatę.
2. Przeprawa przez bród i atak wilków.
"""
PLAN_REVIEW_COMMENT = (
    "Brakuje opisu NPC: jak łatwowierny jest kupiec i ilu jest wilków? "
    "Dopisz też, co się dzieje, jeśli drużyna zawróci."
)
PLAN_REVISED = """\
Drużyna eskortuje wóz **starego kupca** przez bród na Czarnej Rzece. We mgle czekają wilki.

1. Targi z kupcem o zapłatę: kupiec jest łatwowierny (perswazja +100).
2. Przeprawa przez bród: trzy wilki, przewodnik stada walczy do końca.
3. Jeśli drużyna zawróci, kupiec jedzie sam, a rano wóz stoi pusty przy brodzie.
"""
