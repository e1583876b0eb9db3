"""An unfinished post in the demo's main session: gracz2 started Borys's next move and left
it as a draft, which the diary's form offers back when gracz2 opens it (on any device)."""

from characters.models import Character
from diary.drafts import services as draft_services
from diary.drafts.access import access_draft
from diary.models import DraftPlace, GameSession

DRAFT_AUTHOR = "gracz2"
DRAFT_TEXT = (
    "Borys odkłada wytrychy i przykłada ucho do wieka skrzyni. W środku coś cicho "
    "tyka… (dokończę wieczorem)"
)
DRAFT_NOTE = "Jeśli to pułapka, poproszę o rzut na Spostrzegawczość."


def seed_draft(session: GameSession, users: dict) -> None:
    """gracz2's unfinished post, with its narrating character and an OOC note."""
    author = users[DRAFT_AUTHOR]
    draft_services.draft_save(
        place=access_draft(author, session.pk, DraftPlace.POST),
        author=author,
        text=DRAFT_TEXT,
        note=DRAFT_NOTE,
        character=Character.objects.get(owner=author, name="Borys"),
    )
