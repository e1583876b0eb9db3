"""The registry of rule systems: each system's plug-in (rolls.plugins.RollSystem) by
name. The shared roll path asks `system_for(session.system)` and never names a system.

The site's systems are the packages of rolls/systems/ named in INSTALLED; `load()` imports
them once the apps are ready (rolls.apps). A fifth system is a package there that calls
`register` and brings its engine module and its conformance vectors.
"""

from __future__ import annotations

from importlib import import_module

from rolls.engine import systems as engine_systems
from rolls.plugins import RollSystem

INSTALLED = (
    "rolls.systems.forum1000",
    "rolls.systems.q10",
    "rolls.systems.ciernie",
    "rolls.systems.arsmagica",
)

_SYSTEMS: dict[str, RollSystem] = {}


def register(system: RollSystem) -> RollSystem:
    _SYSTEMS[system.name] = system
    engine_systems.register(system.engine)
    return system


def unregister(name: str) -> None:
    """Take a system off the site (a test's own system, when the test ends)."""
    _SYSTEMS.pop(name, None)
    if name not in {path.rsplit(".", 1)[1] for path in INSTALLED}:
        engine_systems.unregister(name)


def load() -> None:
    for path in INSTALLED:
        import_module(path)


def system_for(name: str) -> RollSystem | None:
    """The plug-in of a system the panel rolls for, or None."""
    return _SYSTEMS.get(name)


def names() -> tuple[str, ...]:
    return tuple(_SYSTEMS)


def criticals_setting_systems() -> tuple[str, ...]:
    """The systems whose sessions offer "criticals off" (the plug-in's capability)."""
    return tuple(name for name, system in _SYSTEMS.items() if system.criticals_setting)
