from django.urls import path

from diary import views
from diary.absences import views as absence_views
from diary.ads import views as ads_views
from diary.board import views as board_views
from diary.drafts import views as draft_views
from diary.handover import views as handover_views
from diary.notifications import webhook_views
from diary.npcs import views as npc_views
from diary.nudges import views as nudge_views
from diary.pictures import views as picture_views
from diary.polls import views as poll_views
from diary.scenes import views as scene_views
from diary.search import views as search_views
from diary.talk import views as talk_views

app_name = "diary"

urlpatterns = [
    path("", views.session_list, name="session_list"),
    path("new/", views.session_create, name="session_create"),
    # Search in the posts of every session the user may read.
    path("search/", search_views.search, name="search"),
    # The recruiting board: sessions that take applications now, and players' ads.
    path("recruiting/", ads_views.recruiting, name="recruiting"),
    path("recruiting/players/", ads_views.ads_board, name="ads_board"),
    path("recruiting/my-ad/", ads_views.ad_mine, name="ad_mine"),
    path("recruiting/my-ad/withdraw/", ads_views.ad_withdraw, name="ad_withdraw"),
    path("recruiting/ads/<int:ad_pk>/invite/", ads_views.ad_invite, name="ad_invite"),
    # The user's absences (every session of theirs, or one) and the GM's nudges.
    path("absences/", absence_views.absences, name="absences"),
    path("absences/<int:absence_pk>/end/", absence_views.absence_end, name="absence_end"),
    path("absences/<int:absence_pk>/delete/", absence_views.absence_delete, name="absence_delete"),
    path("<int:pk>/nudge/", nudge_views.nudge, name="nudge"),
    path("<int:pk>/", views.session_detail, name="session"),
    path("<int:pk>/edit/", views.session_edit, name="session_edit"),
    path("<int:pk>/live/", views.session_live, name="session_live"),
    path("<int:pk>/status/", views.session_status, name="session_status"),
    path("<int:pk>/mute/", views.session_mute, name="session_mute"),
    path("<int:pk>/webhook/", webhook_views.session_webhook, name="session_webhook"),
    path("<int:pk>/plan/", views.session_plan, name="session_plan"),
    path("<int:pk>/plan/review/", views.session_plan_review, name="session_plan_review"),
    path("<int:pk>/participants/", views.session_participants, name="participants"),
    path("<int:pk>/join/", views.session_join, name="session_join"),
    path("<int:pk>/turns/", views.turn_open, name="turn_open"),
    path("<int:pk>/turns/deadline/", views.turn_deadline, name="turn_deadline"),
    path("<int:pk>/posts/", views.post_create, name="post_create"),
    path("<int:pk>/posts/preview/", views.post_preview, name="post_preview"),
    # Pictures attached to posts: their files (for the diary's readers), the gallery, a pin.
    path("<int:pk>/pictures/", picture_views.gallery, name="gallery"),
    path("<int:pk>/pictures/<str:name>", picture_views.picture_file, name="picture_file"),
    path(
        "<int:pk>/pictures/<int:picture_pk>/pin/",
        picture_views.picture_pin,
        name="picture_pin",
    ),
    # What the author is still writing (a post, an OOC message, a whisper's, the plan).
    path("<int:pk>/drafts/<slug:place>/", draft_views.draft_save, name="draft_save"),
    path("<int:pk>/drafts/<slug:place>/discard/", draft_views.draft_discard, name="draft_discard"),
    # Table talk beside the diary: the OOC thread and whispers.
    path("<int:pk>/ooc/", talk_views.ooc, name="ooc"),
    path("<int:pk>/whispers/", talk_views.whispers, name="whispers"),
    path("<int:pk>/whispers/new/", talk_views.whisper_new, name="whisper_new"),
    path("<int:pk>/whispers/<int:thread_pk>/", talk_views.whisper, name="whisper"),
    # The GM handover: co-GMs, a session handed to a new GM, its history.
    path("<int:pk>/co-gms/", handover_views.co_gms, name="co_gms"),
    path("<int:pk>/co-gms/remove/", handover_views.co_gm_remove, name="co_gm_remove"),
    path("<int:pk>/handover/", handover_views.session_handover, name="session_handover"),
    path("<int:pk>/history/", handover_views.session_history, name="session_history"),
    # The GM's notice board, and polls in the OOC thread.
    # Scenes for a split party (whoever runs the session).
    path("<int:pk>/scenes/", scene_views.scenes, name="scenes"),
    path("<int:pk>/board/", board_views.board, name="board"),
    path("<int:pk>/board/new/", board_views.announcement_new, name="announcement_new"),
    path(
        "<int:pk>/board/<int:announcement_pk>/",
        board_views.announcement_edit,
        name="announcement_edit",
    ),
    path(
        "<int:pk>/board/<int:announcement_pk>/pin/",
        board_views.announcement_pin,
        name="announcement_pin",
    ),
    path("<int:pk>/ooc/polls/new/", poll_views.poll_new, name="poll_new"),
    path("<int:pk>/ooc/polls/<int:poll_pk>/", poll_views.poll, name="poll"),
    path("<int:pk>/ooc/polls/<int:poll_pk>/close/", poll_views.poll_close, name="poll_close"),
    path("<int:pk>/npcs/", npc_views.npc_list, name="npcs"),
    path("<int:pk>/npcs/<int:npc_pk>/", npc_views.npc_edit, name="npc_edit"),
    path("<int:pk>/npcs/<int:npc_pk>/stand-in/", npc_views.npc_stand_in, name="npc_stand_in"),
    path(
        "<int:pk>/npcs/<int:npc_pk>/portrait/",
        npc_views.npc_portrait_upload,
        name="npc_portrait_upload",
    ),
    path(
        "<int:pk>/npcs/<int:npc_pk>/portrait/remove/",
        npc_views.npc_portrait_remove,
        name="npc_portrait_remove",
    ),
    path(
        "<int:pk>/npcs/<int:npc_pk>/modifiers/",
        npc_views.npc_modifier_add,
        name="npc_modifier_add",
    ),
    path(
        "<int:pk>/npcs/<int:npc_pk>/modifiers/<int:modifier_pk>/delete/",
        npc_views.npc_modifier_delete,
        name="npc_modifier_delete",
    ),
    path(
        "<int:pk>/npcs/<int:npc_pk>/modifiers/<int:modifier_pk>/",
        npc_views.npc_modifier_edit,
        name="npc_modifier_edit",
    ),
    path(
        "participations/<int:pk>/accept/",
        views.participation_decide,
        {"decision": "accept"},
        name="participation_accept",
    ),
    path(
        "participations/<int:pk>/decline/",
        views.participation_decide,
        {"decision": "decline"},
        name="participation_decline",
    ),
    path(
        "participations/<int:pk>/withdraw/",
        views.participation_withdraw,
        name="participation_withdraw",
    ),
    # Every post's permalink, which finds the page the post is on.
    path("posts/<int:pk>/", views.post_link, name="post_link"),
    path("posts/<int:pk>/edit/", views.post_edit, name="post_edit"),
    path("posts/<int:pk>/hide/", views.post_hide, name="post_hide"),
    path("posts/<int:pk>/history/", views.post_history, name="post_history"),
]
