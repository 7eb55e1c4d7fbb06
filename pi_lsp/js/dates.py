"""Entry timestamps as JavaScript's ``Date.parse`` reads them.

Session entries carry ISO-8601 strings (``2026-03-15T22:40:18.123Z``); the messages projected
from them carry epoch milliseconds. Pi converts with ``Date.parse`` / ``new Date(s).getTime()``,
so this module follows the ECMAScript date-time string format as V8 accepts it:

* ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` (or a signed six-digit year), optionally followed by
  ``THH:mm``, ``:ss`` and a fraction of any length (only milliseconds count), then ``Z`` or
  ``±HH:mm``; V8 also takes ``t`` or a space for ``T``, ``z`` for ``Z`` and ``±HHmm``;
* a date alone is UTC, a date-time without an offset is local time;
* days 1–31 are accepted in every month and overflow into the next one (``02-30`` → 2 March),
  as V8's date composer does; ``24:00`` is the end of the day.

Anything else gives NaN (``math.nan``): the rest of V8's lenient fallback for free-form dates
(``2025-1-1``, ``Dec 9 2025``, …) is not reproduced; Pi writes ``toISOString()`` values.
A valid result is an ``int``.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

__all__ = ["parse_timestamp_ms"]

_ISO = re.compile(
    r"(?P<year>[+-]\d{6}|\d{4})"
    r"(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>[Zz]|[+-]\d{2}:?\d{2})?)?"
)

_DAY_MS = 86_400_000
_MAX_TIME_MS = 8.64e15


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (``day`` may exceed the month)."""
    shifted = year - 1 if month <= 2 else year
    era = shifted // 400
    year_of_era = shifted - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468 + (day - 1)


def _local_offset_ms(instant_ms: int) -> int:
    """The local zone's offset (ms east of UTC) at that instant."""
    try:
        local = time.localtime(instant_ms // 1000)
    except (OverflowError, OSError, ValueError):
        return 0
    return (local.tm_gmtoff or 0) * 1000


def _local_to_utc_ms(wall_ms: int) -> int:
    """The instant whose local wall-clock time is ``wall_ms`` (read as if it were UTC).

    Around a zone transition V8 takes the offset in force before it: a repeated wall time
    (clocks set back) is its earlier instant, a skipped one (clocks set forward) is read with
    the old offset, so it lands after the jump.
    """
    before = _local_offset_ms(wall_ms - _DAY_MS)
    offsets = dict.fromkeys(
        (before, _local_offset_ms(wall_ms), _local_offset_ms(wall_ms + _DAY_MS))
    )
    valid = [wall_ms - offset for offset in offsets if _local_offset_ms(wall_ms - offset) == offset]
    return min(valid) if valid else wall_ms - before


def parse_timestamp_ms(value: Any) -> float:
    """``Date.parse(value)``: epoch milliseconds as an ``int``, or ``math.nan`` when invalid.

    Non-string values give NaN too (Pi only ever stores strings here).
    """
    if not isinstance(value, str):
        return math.nan
    match = _ISO.fullmatch(value)
    if match is None:
        return math.nan
    year_text = match["year"]
    if year_text == "-000000":
        return math.nan
    year = int(year_text)
    month = int(match["month"] or 1)
    day = int(match["day"] or 1)
    hour = int(match["hour"] or 0)
    minute = int(match["minute"] or 0)
    second = int(match["second"] or 0)
    millis = int((match["fraction"] or "0")[:3].ljust(3, "0"))
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return math.nan
    if hour == 24:
        if minute or second or millis:
            return math.nan
    elif hour > 23 or minute > 59 or second > 59:
        return math.nan
    result = (
        _days_from_civil(year, month, day) * _DAY_MS
        + ((hour * 60 + minute) * 60 + second) * 1000
        + millis
    )
    zone = match["zone"]
    if zone is not None and zone not in "Zz":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[-2:])
        if zone_hours > 23 or zone_minutes > 59:
            return math.nan
        offset = (zone_hours * 60 + zone_minutes) * 60_000
        result -= offset if zone[0] == "+" else -offset
    elif zone is None and match["hour"] is not None:
        result = _local_to_utc_ms(result)
    if abs(result) > _MAX_TIME_MS:
        return math.nan
    return result
