"""What a moderator and a stranger check: the session's audit page (its chain verified, every
result recomputed, the dice's statistics), the ledger as JSON, the session carried away as a
ZIP, and the site's public keys."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from config.roles import is_moderator
from diary.models import GameSession
from rolls import registry, selectors
from rolls.access import session_for_reader
from rolls.audit import archive as session_archive
from rolls.free.selectors import free_roll_stats
from rolls.ledger import signing
from rolls.ledger import verify as ledger
from rolls.ledger.export import ledger_export
from rolls.presenters import roll_view


@login_required
@require_GET
def audit(request, pk: int):
    """Moderators: the session's chain verified, and roll statistics per character."""
    if not is_moderator(request.user):
        raise PermissionDenied  # before the lookup: no one learns which sessions exist
    session = get_object_or_404(GameSession.objects.select_related("gm"), pk=pk)
    system = registry.system_for(session.system)
    return render(
        request,
        "rolls/audit.html",
        {
            "session": session,
            # The strongest check: chain, signatures, and every result recomputed.
            "report": ledger.verify_session(session.pk, recompute=True),
            "signing_key_id": signing.key_id_of(signing.current_public_key()),
            "rolls": [roll_view(r) for r in selectors.session_rolls(session)],
            # The system's own figures of its dice, and the legend of its marks.
            "audit_template": system.audit_template if system else "",
            "stats": system.audit(session) if system and system.audit else None,
            # Free-form dice, per roller (the GM's, and each player's where allowed).
            "free_stats": free_roll_stats(session),
            "legend_template": system.legend_template if system else "",
            "legend": system.legend if system else None,
        },
    )


@login_required
@require_GET
def export(request, pk: int):
    """The session's whole ledger as JSON, to recompute the chain anywhere (docs/audit.md)."""
    session = session_for_reader(request, pk)
    payload = ledger_export(session)
    response = JsonResponse(payload, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="codziennik-ledger-{session.pk}.json"'
    return response


@login_required
@require_GET
def archive(request, pk: int):
    """The session carried away (rolls/audit/archive.py): one ZIP of its diary as static pages, its
    ledger, the site's public keys and verify.html, for whoever reads the session."""
    session = session_for_reader(request, pk)
    response = HttpResponse(
        session_archive.session_archive(request.user, session), content_type="application/zip"
    )
    response["Content-Disposition"] = f'attachment; filename="codziennik-sesja-{session.pk}.zip"'
    return response


@require_GET
def ledger_keys(request):
    """The public keys every roll's signature verifies against (docs/audit.md): public, so
    anyone can check an exported ledger with docs/verify_ledger.py --public-key."""
    keys = signing.trusted_public_keys()
    payload = {
        "signature_rule": signing.SIGNATURE_RULE,
        "current_key_id": signing.key_id_of(signing.current_public_key()),
        "public_keys": keys,
    }
    return JsonResponse(payload, json_dumps_params={"indent": 1})
