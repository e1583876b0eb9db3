"""Writes tests/rolls/vectors/free_notation.jsonl (dice from a seeded source; the exact
distributions checked against the brute-force enumeration before they are written). Cases
are read in the notation's current version (their input names it); the `legacy-` ones as
rolls stored before version 2 were (no version in their input: version 1):

    SECRET_KEY=x .venv/bin/python -m tests.rolls.engine.free_vectors
"""

import json
import sys

sys.path.insert(0, ".")
from rolls.engine import notation
from rolls.engine.dice import RandomDice
from rolls.engine.errors import RuleError
from tests.rolls.engine.test_notation_features import enumerated

CASES = [
    ("product", "(1d6+2)*2", 1),
    ("division-rounds-down", "1d6/2", 2),
    ("negative-division-floor", "-1d6/2", 3),
    ("dice-times-dice", "1d4*1d4", 4),
    ("reroll", "2d6r1", 5),
    ("reroll-once-below", "2d6ro<3", 6),
    ("reroll-at-least", "1d6r>=5", 7),
    ("successes", "10d10>=8", 8),
    ("successes-failures", "4d10>=8f1", 9),
    ("successes-equal", "4d4=4", 10),
    ("group-best", "{1d20, 1d20}kh1", 11),
    ("group-worst-two", "{1d6+1, 2d4, 1d8}kl2", 12),
    ("fate", "4dF", 13),
    ("fate-plus", "3dF+1", 14),
    ("keep-short", "4d6k3", 15),
    ("drop-short", "4d6d1", 16),
    ("keep-highest", "4d6kh3", 17),
    ("labels", "1d8[cięcie] + 2d6[ogień]", 18),
    ("compound", "2d4!!", 19),
    ("explode", "3d6!", 20),
    ("explode-keep", "3d4!kh2", 21),
    ("explode-successes", "2d4>=4!", 22),
    ("compound-successes", "2d4>=5!!", 23),
    ("explode-reroll", "2d4!r1", 24),
    ("reroll-keep", "2d4r1k1", 25),
    ("unicode-minus", "1d6 − 1", 26),
    ("en-dash", "1d6 – 1", 27),
    ("percentile", "d%", 28),
    ("drop-highest-group", "{1d4, 1d6}dh1", 29),
    ("explode-trigger", "1d6!>=5", 37),
    ("explode-trigger-successes", "2d6!>=5>=4", 30),
    ("explode-on-one", "1d4!<2", 37),
    ("compound-trigger", "2d6!!>4", 30),
    ("explode-trigger-keep", "3d6!>=5kh2", 30),
    ("explode-middle-face-keep-lowest", "3d4!=2kl2", 32),
    ("one-part-group-keeps-dice", "{4d10}kl1", 36),
]
# Rolls stored before version 2, read as they were then (a comparison after ! counted
# successes; keep/drop after a one-part group kept that part).
LEGACY = [
    ("legacy-explode-successes", "2d4!>=4", 38),
    ("legacy-compound-successes", "2d4!!>=5", 38),
    ("legacy-one-part-group", "{4d10}kl1", 36),
]
SMALL = {
    "1d6/2",
    "-1d6/2",
    "1d4*1d4",
    "2d6r1",
    "2d6ro<3",
    "1d6r>=5",
    "4d10>=8f1",
    "4d4=4",
    "{1d20, 1d20}kh1",
    "4dF",
    "3dF+1",
    "4d6k3",
    "4d6d1",
    "(1d6+2)*2",
    "{1d4, 1d6}dh1",
    "2d4r1k1",
    "10d10>=8",
    "1d6 − 1",
    "d%",
    "1d6!>=5",
    "1d4!<2",
    "{4d10}kl1",
}
REFUSALS = [
    ("1d20+5 < 15", "notation_syntax"),
    ("1d6<>3", "notation_syntax"),
    ("(1d6, 1d6)kh1", "notation_syntax"),
    ("1d6, 1d6", "notation_syntax"),
    ("1d20%3", "notation_syntax"),
    ("2!", "notation_syntax"),
    ("1 != 1", "notation_syntax"),
    ("hello", "notation_syntax"),
    ("hit 1d20", "notation_syntax"),
    ("1d6\t+1", "notation_syntax"),
    ("1d6\n+1", "notation_syntax"),
    ("1d6\u00a0+1", "notation_syntax"),
    ("((1d6)", "notation_unclosed"),
    ("1d6 1d6", "notation_syntax"),
    ("1d6/1d4", "notation_division"),
    ("1d6/0", "notation_division"),
    ("1d6r<7", "notation_reroll_all"),
    ("4dF!", "notation_fate_explode"),
    ("1d6[]", "notation_label"),
    ("4d6kh3>=4", "notation_selection_success"),
    ("{1d6, 1d6}kh3", "notation_selection"),
    ("101d6", "notation_too_many_dice"),
    ("1d1", "notation_faces"),
    ("1d6f1", "notation_syntax"),
    ("1d6+", "notation_incomplete"),
    ("2d", "notation_incomplete"),
    ("1d6!>=1", "notation_explode_all"),
    ("1d6!r<6", "notation_explode_all"),
    ("1d6!>6", "notation_explode_none"),
    ("{4d10+2}kl1", "notation_group_one_part"),
]
out = []
for name, text, seed in CASES + LEGACY:
    parsed = notation.parse_notation(text, 1 if name.startswith("legacy-") else None)
    result = notation.roll_notation(parsed, RandomDice(seed)).to_dict()
    case = {
        "id": f"free-{name}",
        "system": "free",
        "test": "notation",
        "input": parsed.to_input(),
        "dice": result["dice"],
        "expect": {
            "total": result["total"],
            "notation": result["notation"],
            "terms": result["terms"],
        },
    }
    if text in SMALL and not name.startswith("legacy-"):
        dist = notation.exact_odds(parsed).distribution
        if text != "10d10>=8":  # 10^10 ways: checked against the binomial below
            assert dist == enumerated(text), text
        else:
            from fractions import Fraction
            from math import comb

            assert dist == {
                k: comb(10, k) * Fraction(3, 10) ** k * Fraction(7, 10) ** (10 - k)
                for k in range(11)
            }
        case["distribution"] = {str(v): f"{p.numerator}/{p.denominator}" for v, p in dist.items()}
    out.append(case)
for text, code in REFUSALS:
    try:
        notation.parse_notation(text)
        raise SystemExit(f"accepted: {text!r}")
    except RuleError as error:
        if error.code != code:
            raise SystemExit(f"{text!r}: {error.code}, not {code}") from None
    out.append(
        {
            "id": f"free-refused-{len(out)}",
            "system": "free",
            "test": "notation",
            "input": {"expression": text, "version": notation.VERSION},
            "dice": [],
            "expect": {"error": True, "code": code},
        }
    )
with open("tests/rolls/vectors/free_notation.jsonl", "w", encoding="utf-8") as f:
    for case in out:
        f.write(json.dumps(case, ensure_ascii=False, separators=(",", ":")) + "\n")
print(len(out), "cases")
