"""`python -m rolls.conformance FILE [FILE ...]`: the rule vectors' runner under the name
shared/rules/VECTORS.md gives it. The runner itself is rolls.engine.conformance, pure like the
engine (no Django); this package only names the command."""
