"""The admin's user forms refuse look-alike names as sign-up does.

config is not an app, so admin autodiscovery never imports this module:
config/urls.py does, after django.contrib.auth has registered its UserAdmin.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from config import usernames


class LookAlikeCheckedCreationForm(AdminUserCreationForm):
    def clean_username(self):
        username = self.cleaned_data.get("username")
        if username:
            usernames.check_username(username)
        return super().clean_username()


class LookAlikeCheckedChangeForm(UserChangeForm):
    def clean_username(self):
        username = self.cleaned_data.get("username")
        # Only a new name is checked: an old one stays editable whatever it is.
        if username and "username" in self.changed_data:
            usernames.check_username(username, exclude_pk=self.instance.pk)
        return username


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class CodziennikUserAdmin(UserAdmin):
    add_form = LookAlikeCheckedCreationForm
    form = LookAlikeCheckedChangeForm
