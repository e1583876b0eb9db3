"""The engine's own validation error.

Every invalid input is refused with a `RuleError` before any die is rolled. The
`code` is stable (the web layer maps code + params to a Polish message), the
`params` hold the values a message needs, and `str(error)` is an English sentence
a person can read. docs/rules.md lists every code with its params.
"""

from __future__ import annotations

from typing import Any


class RuleError(ValueError):
    """An input the rules refuse.

    `code` names the broken rule, `params` carries JSON-friendly values for the
    message (ints, strings, lists of strings).
    """

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params: dict[str, Any] = params
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params), "message": self.message}

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r}, params={self.params!r})"
