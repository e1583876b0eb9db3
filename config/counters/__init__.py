"""The rate-limit counters' table (config/rate_limits.py counts in it). An app of its own
only so that a migration creates the table: config itself is no app (config/admin.py)."""
