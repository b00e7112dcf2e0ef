"""What an MQSC command answers: its lines and status, the DISPLAY layout, runmqsc's summary.
Shared by the command executor and its cluster commands."""
from __future__ import annotations

from dataclasses import dataclass, field

OK, ERROR, SYNTAX = "ok", "error", "syntax"


@dataclass
class Result:
    lines: list[str] = field(default_factory=list)
    status: str = OK


WIDE = 38      # an attribute this long has a line of its own (MQ 9's runmqsc: 37 characters pair, 38 do not)


def format_fields(items: list[str]) -> list[str]:
    """DISPLAY layout as MQ's runmqsc prints it: three blanks, then attributes two to a line in
    40-column fields; one of WIDE characters or more, or a list MQ prints a value a line (an item
    with line breaks), has a line of its own, and an item left without a partner keeps its field's
    width (MQ pads it to 37 characters)."""
    lines: list[str] = []
    pending: str | None = None
    for item in items:
        if len(item) >= WIDE or "\n" in item:
            if pending is not None:
                lines.append("   " + pending.ljust(WIDE - 1))
                pending = None
            lines.extend("   " + part for part in item.split("\n"))
        elif pending is None:
            pending = item
        else:
            lines.append("   " + pending.ljust(40) + item)
            pending = None
    if pending is not None:
        lines.append("   " + pending.ljust(WIDE - 1))
    return lines


def wrapped_list(keyword: str, values: list[str]) -> str:
    """A list attribute as DISPLAY prints it: its first value after the keyword, each other on a
    line of its own under it, after a comma (NAMES(A / ,B / ,C))."""
    if len(values) < 2:
        return f"{keyword}({','.join(values)})"
    return f"{keyword}({values[0]}" + "".join(f"\n{' ' * len(keyword)},{v}" for v in values[1:]) + ")"


class SyntaxProblem(Exception):
    """A command that does not parse: reported as AMQ8405I with the segment at fault."""

    def __init__(self, text: str, segment: str, reason: str = "") -> None:
        super().__init__(reason)
        self.text = text
        self.segment = segment
        self.reason = reason


def summary(results: list[Result]) -> tuple[list[str], int]:
    """runmqsc's closing lines and exit code (0 all processed, 10 some failed or had syntax errors)."""
    n = len(results)
    syntax = sum(1 for r in results if r.status == SYNTAX)
    failed = sum(1 for r in results if r.status == ERROR)
    lines = ["One MQSC command read." if n == 1 else f"{n} MQSC commands read."]
    if syntax == 0:
        lines.append("No commands have a syntax error.")
    elif syntax == 1:
        lines.append("One command has a syntax error.")
    else:
        lines.append(f"{syntax} commands have a syntax error.")
    if failed == 0:
        lines.append("All valid MQSC commands were processed.")
    elif failed == 1:
        lines.append("One valid MQSC command could not be processed.")
    else:
        lines.append(f"{failed} valid MQSC commands could not be processed.")
    return lines, (10 if syntax or failed else 0)
