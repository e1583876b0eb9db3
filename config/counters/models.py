from django.db import models


class RateCounter(models.Model):
    """Hits of one key (an action and who or where it comes from) in its current window.
    Written only by config.rate_limits, one INSERT … ON CONFLICT statement a hit."""

    key = models.CharField(max_length=200, primary_key=True)
    # When the current window ends, in seconds since the epoch (time.time()).
    window_end = models.FloatField()
    hits = models.PositiveIntegerField()

    class Meta:
        db_table = "rate_counter"

    def __str__(self) -> str:
        return f"{self.key}: {self.hits}"
