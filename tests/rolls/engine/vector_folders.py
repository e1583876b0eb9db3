"""Where the conformance vectors are.

The steering folder next to the checkout (../shared/rules/vectors) when there is
one, since it may hold newer cases; otherwise the snapshot of it kept in this
repository (tests/rolls/vectors/shared/), so a clone anywhere runs them.
"""

from pathlib import Path

OWN_VECTORS = Path(__file__).resolve().parents[1] / "vectors"
_STEERING_VECTORS = Path(__file__).resolve().parents[4] / "shared" / "rules" / "vectors"
SHARED_VECTORS = _STEERING_VECTORS if _STEERING_VECTORS.is_dir() else OWN_VECTORS / "shared"
