"""docs/audit.md's worked example of the fair dice, recomputed from the text itself, so that
the document cannot drift from rolls/engine/fair.py (nor from docs/verify_ledger.py)."""

import hashlib
import hmac
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.engine.fair import canonical_json, derive_face, draws_match, seed_commitment

DOCS = Path(__file__).resolve().parents[3] / "docs"


@pytest.fixture(scope="module")
def example() -> str:
    text = (DOCS / "audit.md").read_text(encoding="utf-8")
    start = text.index("### Worked example")
    return text[start : text.index("### What it proves", start)]


def blocks(text: str, language: str) -> list[str]:
    """The fenced blocks in `language` ("" for plain ones), in order."""
    fenced = re.findall(r"^```(\w*)\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)
    return [body for lang, body in fenced if lang == language]


def seeds_of(example: str) -> dict:
    return dict(re.findall(r"^- (public|secret) seed: `([0-9a-f]{64})`$", example, re.M))


def table_of(example: str) -> list[tuple[int, int, int, str, int, int]]:
    row = r"^\| (\d+) \| (\d+)\.\.(\d+) \| `([0-9a-f]{64})` \| (\d+) \| (\d+) \|$"
    return [
        (int(d), int(lo), int(hi), digest, int(rest), int(face))
        for d, lo, hi, digest, rest, face in re.findall(row, example, re.M)
    ]


def test_the_worked_example_recomputes(example):
    seeds = seeds_of(example)
    assert set(seeds) == {"public", "secret"}
    commit, roll, reveal = (json.loads(block) for block in blocks(example, "json"))
    session, turn = commit["session"], commit["turn"]
    assert commit["dice_commit"]["turn"] == turn == roll["turn"] == reveal["dice_reveal"]["turn"]
    # The reveal is an entry of the turn it reveals, as the site writes it (rolls.ledger.fair_dice).
    assert reveal["turn"] == turn and reveal["seq"] > roll["seq"]
    for stream, seed in seeds.items():
        assert commit["dice_commit"][stream] == seed_commitment(
            session=session, turn=turn, stream=stream, seed=seed
        )
        assert reveal["dice_reveal"]["seeds"][stream] == seed
    # The commitment's bytes as the text spells them.
    domain, payload = blocks(example, "")[0].rstrip("\n").split("\n")
    assert domain == "codziennik/dice-seed/v1"
    assert payload.encode() == canonical_json(
        {"seed": seeds["public"], "session": session, "stream": "public", "turn": turn}
    )
    assert (
        hashlib.sha256(f"{domain}\n{payload}".encode()).hexdigest()
        == (commit["dice_commit"]["public"])
    )

    fair = roll["fair"]
    assert fair["commit"] == commit["seq"] == reveal["dice_reveal"]["commit"]
    rows = table_of(example)
    assert [d for d, *_ in rows] == [0, 1, 2]
    assert [[lo, hi, face] for _, lo, hi, _, _, face in rows] == fair["draws"]
    key = bytes.fromhex(seeds["public"])
    for die, low, high, digest, remainder, face in rows:
        message = b"codziennik/die/v1\n" + canonical_json(
            {
                "attempt": 0,
                "client_seed": fair["client_seed"],
                "die": die,
                "high": high,
                "low": low,
                "seq": roll["seq"],
                "session": session,
            }
        )
        assert hmac.new(key, message, hashlib.sha256).hexdigest() == digest
        value, faces = int(digest, 16), high - low + 1
        assert value < 2**256 - 2**256 % faces  # no redraw
        assert (value % faces, low + value % faces) == (remainder, face)
        assert face == derive_face(
            seed=seeds["public"],
            session=session,
            seq=roll["seq"],
            client_seed=fair["client_seed"],
            die=die,
            low=low,
            high=high,
        )
    assert (
        draws_match(
            seed=seeds["public"],
            session=session,
            seq=roll["seq"],
            client_seed=fair["client_seed"],
            draws=fair["draws"],
        )
        is None
    )
    # The first message as the text spells it.
    first = blocks(example, "")[1].rstrip("\n").split("\n")
    assert first[0] == "codziennik/die/v1"
    assert json.loads(first[1]) == {
        "attempt": 0,
        "client_seed": fair["client_seed"],
        "die": 0,
        "high": 10,
        "low": 1,
        "seq": roll["seq"],
        "session": session,
    }


def _within(part, whole) -> bool:
    """`part` is `whole` abridged: only keys left out, lists item by item."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            key in whole and _within(value, whole[key]) for key, value in part.items()
        )
    if isinstance(part, list):
        return (
            isinstance(whole, list)
            and len(part) == len(whole)
            and all(_within(p, w) for p, w in zip(part, whole, strict=True))
        )
    return part == whole


def test_the_examples_roll_is_what_the_engine_makes_of_its_dice(example):
    """The abridged result is the engine's, from its input and dice; its draws are the dice
    its rules ask for, read as "The dice each test asks for" says (the standalone script)."""
    _commit, roll, _reveal = (json.loads(block) for block in blocks(example, "json"))
    result = roll["result"]
    parsed = systems.parse_test(result["system"], result["test"], result["input"])
    again = json.loads(
        json.dumps(systems.roll(result["system"], parsed, ScriptedDice(result["dice"])).to_dict())
    )
    assert _within(result, again), again
    script = _script()
    assert script.dice_requests_problem(result, roll["fair"]["draws"]) is None
    assert script.dice_requests_problem(again, roll["fair"]["draws"]) is None


def test_the_dice_each_system_asks_for_are_written_down():
    """Every system the site rolls has its dice in docs/audit.md and in the standalone
    script, which a stranger's verifier reads instead of the engine."""
    text = (DOCS / "audit.md").read_text(encoding="utf-8")
    start = text.index("### The dice each test asks for")
    section = text[start : text.index("### Verification rules", start)]
    script = _script()
    for system in systems.SYSTEMS:
        assert f"- **{system}**" in section, system
        result = {"system": system, "test": "?", "input": {}}
        assert "does not say which dice" not in (script.dice_requests_problem(result, []) or "")


def _script():
    spec = importlib.util.spec_from_file_location("verify_ledger", DOCS / "verify_ledger.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_standalone_verifier_agrees_with_the_example(example):
    spec = importlib.util.spec_from_file_location("verify_ledger", DOCS / "verify_ledger.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    commit, roll, reveal = (json.loads(block) for block in blocks(example, "json"))
    dice = script.FairDice(commit["session"])
    assert dice.commit_problem(commit, commit["seq"]) is None
    assert dice.fair_problem(roll, "public") is None
    assert dice.awaiting == 1
    assert dice.reveal_problem(reveal) is None
    assert (dice.recomputed, dice.awaiting) == (1, 0)


def test_the_python_snippet_prints_the_first_face(example):
    (snippet,) = blocks(example, "python")
    done = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=30, check=True
    )
    first_face = table_of(example)[0][5]
    assert done.stdout.strip() == str(first_face)
    assert f"print(1 + v % 10)  # {first_face}" in snippet
