"""The demo table for `make run` (`python manage.py seed_demo`): users, a running session of
every system, characters, posts and rolls, built through the same services the pages use.

The app sits on top of the site: it imports the other apps and none imports it (Django
loads it by name; pyproject.toml's import contracts keep it so).
"""
