"""MQ Telemetry's rules as pure functions and one client's protocol state, with no I/O: how an MQTT
client's identity, topics, QoS and session map onto MQ objects (the telemetry service in
mqlite/server/mqxr.py makes the MQI calls these describe).

- A client's subscriptions are MQ subscriptions named ``<ClientIdentifier>:<topic filter>``
  (durable for a persistent session, non-durable for a clean one), topic-based wildcards
  (MQSO_WILDCARD_TOPIC: MQTT's ``+`` and ``#`` are MQ's), delivering to
  SYSTEM.MQTT.TRANSMIT.QUEUE with the client's key as their correlation id and the granted QoS in
  their user data, so a publication waiting for a client is an ordinary persistent or
  nonpersistent message on that queue until the client takes it.
- A publication's QoS 0 is a nonpersistent message, QoS 1 and 2 persistent; a message reaches a
  client at the lower of its subscription's QoS and 0 for nonpersistent, 2 for persistent.
- The identity the OAM judges: the channel's MCAUSER, else the ClientIdentifier when
  USECLTID(YES), else the MQTT user name (checked as CONNAUTH checks a client's), else the user
  the queue manager runs as, as MQ's telemetry service runs as its starter."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

from mqlite.cmq import CMQC as C

TRANSMIT_QUEUE = "SYSTEM.MQTT.TRANSMIT.QUEUE"
MAX_CLIENT_ID = 23                      # MQ Telemetry's limit (MQTT 3.1's), kept for 3.1.1 too
WINDOW = 100                            # messages a delivery unit of work takes before the next takes over


def client_key(client_id: str) -> bytes:
    """The CorrelId of the publications waiting for ``client_id`` on the transmission queue."""
    return hashlib.sha256(b"mqtt:" + client_id.encode("utf-8")).digest()[:24]


def sub_name(client_id: str, topic_filter: str) -> str:
    return f"{client_id}:{topic_filter}"


def owns(client_id: str, name: str) -> bool:
    """Whether a subscription name is one of ``client_id``'s."""
    return name.startswith(client_id + ":")


def valid_client_id(client_id: str) -> bool:
    return 0 < len(client_id.encode("utf-8")) <= MAX_CLIENT_ID


def generated_client_id() -> str:
    """For a clean-session client that gives none (3.1.1 lets the server choose)."""
    return "MQLITE" + os.urandom(8).hex()[:17]


def persistence(qos: int) -> int:
    return C.MQPER_NOT_PERSISTENT if qos == 0 else C.MQPER_PERSISTENT


# The QoS an MQTT client published at, kept with the message when it is not what its persistence
# already says (QoS 1: persistent, like QoS 2), so that a subscriber gets the lower of the two.
PUBLISHED_QOS = "mqtt.qos"


def delivered_qos(sub_qos: int, persistent: bool, published: int | None = None) -> int:
    """MQTT 3.1.1 4.3 and MQ's telemetry service: a message goes to a subscriber at the lower of
    the subscription's QoS and the publication's. A publication from an MQTT client carries its
    QoS (QoS 0 is a nonpersistent message, 1 and 2 persistent ones: a QoS 1 publication says so in
    ``PUBLISHED_QOS``); an MQI application's counts as QoS 2 when persistent and 0 when not."""
    return min(sub_qos, published if published is not None else 2 if persistent else 0)


def sub_user_data(qos: int) -> str:
    return f"mqtt.qos={qos}"


def qos_of(user_data: str) -> int:
    """The granted QoS a subscription's user data carries (0 when it is not one of ours)."""
    return int(user_data[-1]) if user_data.startswith("mqtt.qos=") and user_data[-1:] in ("0", "1", "2") else 0


def identity(mcauser: str, use_client_id: bool, client_id: str, username: str | None, own_user: str) -> str:
    """The user MQ's OAM judges the client as (before CONNAUTH or CHLAUTH change it)."""
    if mcauser:
        return mcauser
    if use_client_id:
        return client_id
    return username or own_user


@dataclass
class Outbound:
    """The messages sent to a client and not yet acknowledged: packet id -> QoS, and the
    PUBRECs answered with PUBREL (QoS 2's second half)."""
    pending: dict[int, int] = field(default_factory=dict)
    released: set[int] = field(default_factory=set)
    last_id: int = 0

    def next_id(self) -> int:
        for _ in range(65535):
            self.last_id = self.last_id % 65535 + 1
            if self.last_id not in self.pending:
                return self.last_id
        raise RuntimeError("no packet identifier free")

    def acked(self, kind: str, packet_id: int) -> bool:
        """PUBACK (QoS 1 done), PUBREC (QoS 2: answer PUBREL) or PUBCOMP (QoS 2 done): whether the
        acknowledgement was for a message in flight."""
        qos = self.pending.get(packet_id)
        if kind == "PUBACK" and qos == 1 or kind == "PUBCOMP" and qos == 2 and packet_id in self.released:
            del self.pending[packet_id]
            self.released.discard(packet_id)
            return True
        if kind == "PUBREC" and qos == 2:
            self.released.add(packet_id)
            return True
        return False
