"""The demo's users, with their development passwords."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from config.roles import MODERATOR_GROUP

# Development passwords only: printed at the end so a developer can log in.
DEMO_USERS = {
    "gm": "kostka-gm-1000",
    "gracz": "kostka-gracz-1000",
    "gracz2": "kostka-gracz2-1000",
    "gracz3": "kostka-gracz3-1000",
    "moderator": "kostka-mod-1000",
    # The main session's co-GM (plays no character), who handed another session to gm.
    "mg2": "kostka-mg2-1000",
}


def demo_users() -> dict:
    """The demo users by username, each made with its password unless it exists;
    `moderator` is in the moderators' group."""
    User = get_user_model()
    users = {}
    for username, password in DEMO_USERS.items():
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(password)
            user.save()
        users[username] = user
    Group.objects.get_or_create(name=MODERATOR_GROUP)[0].user_set.add(users["moderator"])
    return users
