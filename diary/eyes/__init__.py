"""Text for chosen eyes: "[dla: Bartek]…[/dla]" in a post's narration, read only by the
post's author, whoever runs the session, moderators and the players it names. Parsed and
rendered on write (parsing.py, rendering.py), filled in per reader on every surface that
shows a post's text (reading.py)."""
