from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from characters.media import media_file
from config import admin as _user_admin  # noqa: F401  (registers the checked UserAdmin)
from config import login_throttle, views
from config.rate_limits import rate_limited

# The database being unreachable answers the 503 page; any other error the 500 page.
handler500 = "config.views.server_error"

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", login_throttle.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        rate_limited("password_change")(auth_views.PasswordChangeView.as_view()),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("characters/", include("characters.urls")),
    path("sessions/", include("diary.urls")),
    path("sessions/", include("rolls.urls")),
    path("notifications/", include("diary.notifications.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]

# Portraits under MEDIA_ROOT (characters/media.py); not when MEDIA_URL is a CDN's address.
if settings.MEDIA_URL.startswith("/"):
    urlpatterns.append(
        re_path(
            rf"^{settings.MEDIA_URL.strip('/')}/(?P<path>portraits/[0-9a-f]{{32}}(?:_[A-Za-z0-9]{{7}})?\.webp)$",
            media_file,
            name="media_file",
        )
    )
