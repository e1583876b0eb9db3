from django.urls import path

from diary.notifications import views

app_name = "notifications"

urlpatterns = [
    path("", views.notification_list, name="list"),
    path("<int:pk>/open/", views.notification_open, name="open"),
    path("<int:pk>/read/", views.notification_read, name="read"),
    path("read-all/", views.notification_read_all, name="read_all"),
    path("preferences/", views.notification_preferences, name="preferences"),
]
