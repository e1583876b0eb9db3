"""What a session's rule system offers among the session's settings.

The diary does not import the rolls app: the rules app says which systems' plug-ins support
each optional setting through the diary's hooks (diary.hooks.DiaryHooks).
"""

from __future__ import annotations

from diary import hooks


def criticals_setting_systems() -> frozenset[str]:
    """The systems whose rolls read "Krytyki wyłączone"."""
    return frozenset(hooks.current().criticals_setting_systems())


def offers_criticals_setting(system: str) -> bool:
    return system in criticals_setting_systems()
