"""The house's shape, as docs/architecture.md describes it: selectors only select, no
production function outgrows a screen, and the two big apps keep their top level small
(what belongs to one concern lives in its wing). Import directions are lint-imports' (the
contracts in pyproject.toml); these are the rules an import graph cannot see."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("characters", "config", "demo", "diary", "rolls")
# What builds HTML or forms: a presenter's or a view's, never a selector's.
NOT_IN_SELECTORS = {
    "django.forms",
    "django.template",
    "django.template.loader",
    "django.shortcuts",
    "django.utils.safestring",
}
NOT_CALLED_IN_SELECTORS = {"render_to_string", "mark_safe", "format_html", "render"}
LONGEST_FUNCTION = 60  # lines, from `def` to its last line, docstring included
TOP_LEVEL_MODULES = 15  # an app's own modules beside its wings (packages)


def _sources():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _imports(tree) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


SELECTORS = [p for p in _sources() if p.name == "selectors.py"]


def test_there_are_selectors_to_check():
    assert len(SELECTORS) >= 8


@pytest.mark.parametrize("path", SELECTORS, ids=lambda p: str(p.relative_to(ROOT)))
def test_selectors_build_no_html_and_no_forms(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = _imports(tree) & NOT_IN_SELECTORS
    called = {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
    } & NOT_CALLED_IN_SELECTORS
    assert not imported and not called, f"{path.name} imports {imported}, calls {called}"


def test_no_production_function_is_longer_than_a_screen():
    long = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST_FUNCTION:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert not long, "\n".join(long)


@pytest.mark.parametrize("app", ["diary", "rolls"])
def test_an_apps_top_level_stays_small(app):
    modules = sorted(p.name for p in (ROOT / app).glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= TOP_LEVEL_MODULES, modules
