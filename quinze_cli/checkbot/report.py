"""The checklist of ``quinze check-bot``: the checks, their verdicts, the printed and JSON forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHECKS: list[tuple[str, str, str]] = [
    ("handshake", "starts and reads without a handshake",
     "read messages from stdin at once: there is no hello on the bot wire, the first message is game-start "
     "(or any other); write nothing before the first action-request"),
    ("deadline", "answers each request before its deadline",
     "answer within the request's deadline (seconds from the moment it is sent); think less, or watch the clock"),
    ("well-formed", "answers are well-formed action messages",
     'write one JSON object per line (or one msgpack frame), {"type": "action", "table": T, "request": N, '
     '"action": {...}}, integers within 64 bits, finite numbers (NaN and Infinity are not JSON, and Python\'s '
     'json.dumps writes them unless given allow_nan=False), text as msgpack str (never bin or ext), lines under '
     '1 MiB; debugging output goes to stderr'),
    ("legal", "every answer is legal (whole games and crafted hard positions)",
     "send one entry of the request's legal list as it is; for a range {min, max} send {\"amount\": n} with "
     "min <= n <= max instead of min and max"),
    ("copies", "copies table and request",
     'copy the request\'s "request" number (and its "table") into the answer'),
    ("unknown", "ignores unknown message types and fields",
     "skip messages whose type you do not know and keys you do not know; newer servers add both"),
    ("refused", "copes with a refused",
     "after a refused (and the game-over that follows through a relay) keep reading: the next game comes"),
    ("stays-up", "keeps running through whole games (no exit, no crash)",
     "do not exit before stdin ends; catch your own errors (and print them on stderr)"),
    ("games", "plays several games in a row on one process (real server)",
     "after game-over wait for the next game-start on the same stdin; do not exit or reset your reading"),
    ("flush", "ends lines and flushes each answer",
     "end each answer with a newline and flush stdout after it (Python: print(..., flush=True); C: fflush(stdout))"),
    ("stderr", "does not block on its own stderr",
     "write debugging output to stderr (it is drained and capped), never to stdout"),
    ("exit", "exits within 2 s when stdin closes",
     "when stdin ends (read returns end of file), exit with status 0"),
]
"""Every check: id, what it asserts, the hint shown when it fails. In the order printed."""

TITLES = {c[0]: c[1] for c in CHECKS}
HINTS = {c[0]: c[2] for c in CHECKS}


@dataclass
class Verdict:
    """One check's outcome: ``status`` ``pass``, ``fail`` or ``skip`` (not reached: the run that
    checks it stopped first), ``reason`` (why it failed, or a note), ``hint`` (the fix)."""

    check: str
    status: str = "pass"
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    fix: str = ""
    """A hint for this failure in particular (default: the check's own, :data:`HINTS`)."""

    @property
    def title(self) -> str:
        return TITLES[self.check]

    @property
    def hint(self) -> str:
        return (self.fix or HINTS[self.check]) if self.status == "fail" else ""

    def to_data(self) -> dict[str, Any]:
        return {"check": self.check, "title": self.title, "status": self.status, "reason": self.reason,
                "hint": self.hint, "notes": self.notes}


class Checklist:
    """The verdicts being gathered: the first failure of a check is kept (later ones are counted)."""

    def __init__(self, scope: frozenset[str] | None = None) -> None:
        self.verdicts = {c[0]: Verdict(c[0], status="skip", reason="not reached") for c in CHECKS}
        self.failures: dict[str, int] = {}
        self.scope = scope
        """The checks this list may record (a scenario's: ``quinze check-bot`` prints a check once
        every scenario that may record it has ended); None: any. Another raises ``ValueError``."""

    def _verdict(self, check: str) -> Verdict:
        if self.scope is not None and check not in self.scope:
            raise ValueError(f"a verdict for {check!r} in a scenario that does not record it")
        return self.verdicts[check]

    def ok(self, check: str, note: str = "") -> None:
        """The check passed once (a pass never overrides a failure)."""
        v = self._verdict(check)
        if v.status == "skip":
            v.status, v.reason = "pass", ""
        if note and note not in v.notes:
            v.notes.append(note)

    def fail(self, check: str, reason: str, fix: str = "") -> None:
        """The check failed, for ``reason`` (only the first reason is kept); ``fix``: a hint for
        this failure instead of the check's own."""
        v = self._verdict(check)
        self.failures[check] = self.failures.get(check, 0) + 1
        if v.status != "fail":
            v.status, v.reason, v.fix = "fail", reason, fix

    def not_judged(self, check: str, reason: str) -> None:
        """The check could not be judged (``skip``), for ``reason``, unless it already has a verdict."""
        v = self._verdict(check)
        if v.status == "skip":
            v.reason = reason

    def merge(self, later: "Checklist") -> None:
        """Take in the verdicts of ``later`` (another part of the run, a scenario checked on its
        own) as if they had been recorded here after this list's own: a first failure stays first,
        failures add up, a pass never overrides a failure, notes are kept in order."""
        for check, v in later.verdicts.items():
            if v.status == "fail":
                self.fail(check, v.reason, v.fix)
                self.failures[check] += later.failures[check] - 1
            elif v.status == "pass":
                self.ok(check)
            elif v.reason != "not reached":
                self.not_judged(check, v.reason)
            notes = self.verdicts[check].notes
            for note in v.notes:
                if note not in notes:
                    notes.append(note)

    @property
    def passed(self) -> bool:
        return all(v.status == "pass" for v in self.verdicts.values())

    def rows(self) -> list[Verdict]:
        for check, n in self.failures.items():
            v = self.verdicts[check]
            if n > 1 and "more" not in v.reason:
                v.reason += f" (and {n - 1} more)"
        return [self.verdicts[c[0]] for c in CHECKS]
