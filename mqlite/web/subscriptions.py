"""The administrative REST API's v1 subscription resource (``GET /admin/qmgr/{qmgr}/subscription
[/{name}]``), built from the command server's PCF answer to Inquire Subscription, never from MQSC
text (issue 62: a value a client chose cannot pose as another field).

What IBM documents and a real mqweb's answer shows: each subscription is ``id`` (the SUBID in
hex), ``name`` and ``resolvedTopicString``; ``attributes`` adds the objects ``topic`` (``name``,
the topic object, and ``definedString``, the part of the topic string the subscriber gave),
``selector`` (``value``, ``type`` none or standard) and ``destination`` (``isManaged``,
``qmgrName``, ``name``, ``correlationId`` in hex); ``name=`` and ``id=`` select, ``filter=``
keeps as the queue resource's. MQ has further objects (its time stamps, the user) whose member
names are not in the sources reachable here: asked for by name they are 400 MQWB0116E, and ``*``
gives the objects above."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.web import resources as R
from mqlite.web.mqsc import BadRequest

OBJECTS = ("topic", "selector", "destination")
LEAVES = {"id", "name", "resolvedTopicString", "topic.name", "topic.definedString", "selector.value", "selector.type",
          "destination.isManaged", "destination.qmgrName", "destination.name", "destination.correlationId"}

class NoSuchSubscription(Exception):
    """The subscription the path names is not there (MQRC_NO_SUBSCRIPTION)."""


# inquire(params) -> the PCF answer's parameter dicts ([] when there is no such subscription)
Inquire = Callable[[dict[int, Any]], list[dict[int, Any]]]


def text(value: Any) -> str:
    return value.decode("utf-8", "replace").rstrip(" \0") if isinstance(value, (bytes, bytearray)) else str(value or "")


def _hex(value: Any) -> str:
    return bytes(value).hex().upper() if isinstance(value, (bytes, bytearray)) else ""


def subscription_json(values: Mapping[int, Any], prefixes: Mapping[str, str]) -> dict[str, Any]:
    """One subscription of a PCF Inquire Subscription answer as the resource's JSON; ``prefixes``:
    each topic object's topic string (what the subscriber's own part follows)."""
    resolved = text(values.get(C.MQCA_TOPIC_STRING))
    topic_obj = text(values.get(C.MQCA_TOPIC_NAME))
    prefix = prefixes.get(topic_obj, "")
    defined = resolved[len(prefix):].lstrip("/") if prefix and resolved.startswith(prefix) else resolved
    selector = text(values.get(F.MQCACF_SUB_SELECTOR))
    return {
        "id": _hex(values.get(F.MQBACF_SUB_ID)),
        "name": text(values.get(F.MQCACF_SUB_NAME)),
        "resolvedTopicString": resolved,
        "topic": {"name": topic_obj, "definedString": defined},
        "selector": {"value": selector, "type": "standard" if selector else "none"},
        "destination": {"isManaged": values.get(F.MQIACF_DESTINATION_CLASS) == C.MQDC_MANAGED,
                        "qmgrName": text(values.get(F.MQCACF_DESTINATION_Q_MGR)),
                        "name": text(values.get(F.MQCACF_DESTINATION)),
                        "correlationId": _hex(values.get(F.MQBACF_DESTINATION_CORREL_ID))},
    }


def subscriptions(inquire: Inquire, topic_strings: Callable[[set[str]], dict[str, str]], name: str | None,
                  query: Mapping[str, str]) -> dict[str, Any]:
    """GET on the resource: the subscriptions named (the path's name, else ``name=``, generic
    with ``*``; or ``id=``), each projected to what ``attributes`` asks for and kept by ``filter``."""
    keep = R.wanted(query.get("attributes"), list(OBJECTS), LEAVES, "attributes")
    flt = R.Filter.parse(query["filter"], LEAVES) if "filter" in query else None
    params: dict[int, Any] = {}
    if "id" in query:
        try:
            params[F.MQBACF_SUB_ID] = bytes.fromhex(query["id"])
        except ValueError:
            raise BadRequest("MQWB0119E", f"The id '{query['id']}' is not a subscription identifier in hex.") from None
        if len(params[F.MQBACF_SUB_ID]) != 24:
            raise BadRequest("MQWB0119E", f"The id '{query['id']}' is not 24 bytes in hex.")
    else:
        params[F.MQCACF_SUB_NAME] = (name if name is not None else query.get("name", "*")).encode("utf-8")
    found = inquire(params)
    if not found and name is not None and not name.endswith("*"):
        raise NoSuchSubscription(name)
    prefixes = topic_strings({text(v.get(C.MQCA_TOPIC_NAME)) for v in found} - {""})
    out = []
    for values in found:
        obj = subscription_json(values, prefixes)
        if flt is not None and not flt.keeps(obj):
            continue
        base = {k: obj[k] for k in ("id", "name", "resolvedTopicString")}
        if keep is None:
            out.append(obj)
        else:
            out.append(base | R.project({k: obj[k] for k in OBJECTS}, keep))
    return {"subscription": out}
