"""Polish first: the language is the one the user picked, else Polish.

Django's LocaleMiddleware would follow the browser's Accept-Language, and many
Polish players browse with an English browser; the site should greet them in
Polish and let them switch (the header's PL/EN buttons set the cookie).
"""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


def chosen_language(request) -> str:
    """The language the user picked (the header's PL/EN cookie), else Polish."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    supported = {code for code, _name in settings.LANGUAGES}
    return chosen if chosen in supported else settings.LANGUAGE_CODE


class ChosenLanguageMiddleware(LocaleMiddleware):
    def process_request(self, request):
        translation.activate(chosen_language(request))
        request.LANGUAGE_CODE = translation.get_language()
