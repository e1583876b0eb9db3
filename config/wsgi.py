import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Every Q10 pool's odds table before the first request (~25 ms once per server
# process), not in the first odds call that needs it (~6 ms for 10z10). Only servers pay
# it: management commands, workers and tests do not load this module.
from rolls.engine import q10  # noqa: E402

q10.warm()
