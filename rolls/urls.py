from django.urls import path

from rolls import views

app_name = "rolls"

urlpatterns = [
    path("<int:pk>/rolls/panel/", views.panel, name="panel"),
    path("<int:pk>/rolls/<int:seq>/", views.roll_detail, name="detail"),
    path("<int:pk>/rolls/audit/", views.audit, name="audit"),
    path("<int:pk>/rolls/ledger.json", views.export, name="export"),
]
