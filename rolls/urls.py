from django.urls import path

from rolls import views
from rolls.audit import views as audit_views
from rolls.free import views as free_views
from rolls.initiative import views as initiative_views

app_name = "rolls"

urlpatterns = [
    path("<int:pk>/rolls/panel/", views.panel, name="panel"),
    path("<int:pk>/rolls/<int:seq>/", views.roll_detail, name="detail"),
    path("<int:pk>/rolls/<int:seq>/reveal/", views.reveal, name="reveal"),
    path("<int:pk>/rolls/<int:seq>/reroll/", views.reroll, name="reroll"),
    path("<int:pk>/posts/<int:post_pk>/rolls/", views.post_rolls, name="post_rolls"),
    path("<int:pk>/rolls/audit/", audit_views.audit, name="audit"),
    path("<int:pk>/rolls/ledger.json", audit_views.export, name="export"),
    path("<int:pk>/archive.zip", audit_views.archive, name="archive"),
    path("ledger-keys.json", audit_views.ledger_keys, name="ledger_keys"),
    path("<int:pk>/rolls/ask/", views.ask_create, name="ask"),
    path("<int:pk>/rolls/asks/<int:ask_pk>/withdraw/", views.ask_withdraw, name="ask_withdraw"),
    path("<int:pk>/rolls/asks/<int:ask_pk>/decline/", views.ask_decline, name="ask_decline"),
    path("<int:pk>/entries/", views.entries_page, name="entries"),
    path("<int:pk>/items/use/", views.item_use, name="item_use"),
    path("<int:pk>/abilities/use/", views.ability_use, name="ability_use"),
]

# The initiative event (rolls/initiative/views.py).
urlpatterns += [
    path("<int:pk>/rolls/initiative/", initiative_views.initiative, name="initiative"),
    path(
        "<int:pk>/rolls/initiative/marker/",
        initiative_views.initiative_marker,
        name="initiative_marker",
    ),
    path(
        "<int:pk>/rolls/initiative/modifier/",
        initiative_views.initiative_modifier,
        name="initiative_modifier",
    ),
    path(
        "<int:pk>/rolls/initiative/handover/",
        initiative_views.initiative_handover,
        name="initiative_handover",
    ),
    path(
        "<int:pk>/rolls/initiative/npc/",
        initiative_views.initiative_npc_add,
        name="initiative_npc_add",
    ),
    path("<int:pk>/rolls/initiative/end/", initiative_views.initiative_end, name="initiative_end"),
]

# The GM's free-form dice (rolls/free/views.py).
urlpatterns += [path("<int:pk>/rolls/free/", free_views.free_roll, name="free")]
