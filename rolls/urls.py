from django.urls import path

from rolls import views

app_name = "rolls"

urlpatterns = [
    path("<int:pk>/rolls/panel/", views.panel, name="panel"),
    path("<int:pk>/rolls/<int:seq>/", views.roll_detail, name="detail"),
    path("<int:pk>/rolls/audit/", views.audit, name="audit"),
    path("<int:pk>/rolls/ledger.json", views.export, name="export"),
    path("<int:pk>/rolls/ask/", views.ask_create, name="ask"),
    path("<int:pk>/rolls/asks/<int:ask_pk>/withdraw/", views.ask_withdraw, name="ask_withdraw"),
    path("<int:pk>/entries/", views.entries_page, name="entries"),
    path("<int:pk>/items/use/", views.item_use, name="item_use"),
]
