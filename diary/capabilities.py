"""What a session's rule system offers among the session's settings.

The diary does not import the rolls app: the rolls app tells it at start-up which systems'
plug-ins support each optional setting (`register_criticals_setting`, from rolls/apps.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

_criticals_systems: list[Callable[[], Collection[str]]] = []


def register_criticals_setting(systems: Callable[[], Collection[str]]) -> None:
    """`systems()`: the names of the systems whose rolls read "Krytyki wyłączone"."""
    _criticals_systems[:] = [systems]


def criticals_setting_systems() -> frozenset[str]:
    return frozenset(_criticals_systems[0]()) if _criticals_systems else frozenset()


def offers_criticals_setting(system: str) -> bool:
    return system in criticals_setting_systems()
