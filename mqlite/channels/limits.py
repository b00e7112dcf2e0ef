"""How many channel instances may run at once: qm.ini's CHANNELS stanza, as in MQ on
distributed platforms.

- ``MaxChannels`` (default 100): channel instances that may be *current*, that is in any state
  but inactive. Client conversations count (one instance each: mqlite does not share a
  conversation's instance), and so do message channels, STOPPED and RETRYING ones included.
- ``MaxActiveChannels`` (default: MaxChannels): current instances that are also *active*, that is
  not STOPPED, RETRYING or STARTING.

An inbound instance (a client's SVRCONN, a receiver) over either limit is refused: AMQ9513E in the
error log, and a client's MQCONN gets MQRC_CHANNEL_NOT_AVAILABLE (2537). An outbound sender over
MaxChannels does not start (AMQ9513E; START CHANNEL says so). Over MaxActiveChannels it waits in
STARTING until an active slot is free, as MQ documents for MQRC_CHANNEL_NOT_ACTIVATED.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mqlite.catalogue import entry
from mqlite.cmq import CMQCFC as F

DEFAULT_MAX_CHANNELS = 100
LIMIT_RANGE = (1, 65535)                  # MQ's range for MaxChannels
NOT_ACTIVE = ("STOPPED", "RETRYING", "STARTING")

# Why an instance may not start: MQ's reason qualifiers (the Channel Not Available event's).
MAX_CHANNELS = F.MQRQ_MAX_CHANNELS
MAX_ACTIVE_CHANNELS = F.MQRQ_MAX_ACTIVE_CHANNELS
LIMIT_NAMES = {MAX_CHANNELS: "MaxChannels", MAX_ACTIVE_CHANNELS: "MaxActiveChannels"}


@dataclass(frozen=True)
class ChannelLimits:
    max_channels: int = DEFAULT_MAX_CHANNELS
    max_active: int = DEFAULT_MAX_CHANNELS


def channel_limits(ini: dict[str, dict[str, str]], log: Callable[..., Any]) -> ChannelLimits:
    """The limits from qm.ini's CHANNELS stanza (stanza and keys in any case, as MQ reads them).
    A value that is not a whole number from 1 to 65535 is reported and the default used."""
    stanza = next((v for k, v in ini.items() if k.upper() == "CHANNELS"), {})
    keys = {k.upper(): v for k, v in stanza.items()}

    def value(key: str, default: int) -> int:
        raw = keys.get(key.upper())
        if raw is None:
            return default
        if raw.isdigit() and LIMIT_RANGE[0] <= int(raw) <= LIMIT_RANGE[1]:
            return int(raw)
        log(*entry("MQL8001W", stanza="CHANNELS", key=key, raw=raw),
            f"It is a number from {LIMIT_RANGE[0]} to {LIMIT_RANGE[1]}; {default} is used.")
        return default

    most = value("MaxChannels", DEFAULT_MAX_CHANNELS)
    return ChannelLimits(most, value("MaxActiveChannels", most))


def instances(states: Iterable[str], clients: int) -> tuple[int, int]:
    """(current, active) channel instances: the message channels' states (INACTIVE ones are not
    current) and the client conversations, which are running."""
    current = active = clients
    for state in states:
        if state == "INACTIVE":
            continue
        current += 1
        if state not in NOT_ACTIVE:
            active += 1
    return current, active


def refusal(limits: ChannelLimits, current: int, active: int) -> int | None:
    """Why one more channel instance may not become active now (MQ's reason qualifier), or None."""
    if current >= limits.max_channels:
        return MAX_CHANNELS
    if active >= limits.max_active:
        return MAX_ACTIVE_CHANNELS
    return None
