"""Co-GMs, a session handed to a new GM, and its history."""
