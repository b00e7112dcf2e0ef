"""The topic tree: TOPIC objects through MQSC, ASPARENT resolution up the tree, DISPLAY TPSTATUS,
and topic-string matching against a simple model."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.pubsub.matching import char_match, topic_match
from mqlite.pubsub.topics import ancestors


def model_match(pattern: str, topic: str) -> bool:
    """MQ's topic wildcards as a regular expression over levels: '#' any levels (with the '/'
    around it), '+' one level."""
    parts = pattern.split("/")
    rx = ""
    for i, p in enumerate(parts):
        sep = "/" if i else ""
        if p == "#":
            rx += f"(?:{re.escape(sep)}[^/]*(?:/[^/]*)*)?" if i else "(?:[^/]*(?:/[^/]*)*)"
            if i == 0 and len(parts) > 1:
                rx += "(?:/)?"
        elif p == "+":
            rx += re.escape(sep) + "[^/]*"
        else:
            rx += re.escape(sep) + re.escape(p)
    return re.fullmatch(rx, topic) is not None


LEVEL = st.sampled_from(["a", "b", "", "ab"])


@settings(max_examples=500)
@given(st.lists(st.one_of(LEVEL, st.just("+"), st.just("#")), min_size=1, max_size=4),
       st.lists(LEVEL, min_size=1, max_size=4))
def test_topic_wildcards_match_as_a_levels_model(plevels, tlevels):
    pattern, topic = "/".join(plevels), "/".join(tlevels)
    if plevels.count("#") > 1 or (plevels[0] == "#" and len(plevels) > 1):
        return      # the model covers one '#', not leading a longer pattern; the examples below do
    assert topic_match(pattern, topic) == model_match(pattern, topic), (pattern, topic)


def test_topic_wildcard_examples_from_mq():
    assert topic_match("Sport/#", "Sport") and topic_match("Sport/#", "Sport/Football/Results")
    assert topic_match("Sport/+/Results", "Sport/Football/Results")
    assert not topic_match("Sport/+/Results", "Sport/Football/Live/Results")
    assert topic_match("#/Results", "Sport/Football/Results") and topic_match("#", "anything/at/all")
    assert not topic_match("Sport/Foot#", "Sport/Football")        # '#' must be a whole level
    assert topic_match("Sport/Foot#", "Sport/Foot#")
    assert char_match("Sport/*", "Sport/Football/Results") and char_match("Sp?rt*", "Sport")
    assert ancestors("a/b/c") == ["a/b/c", "a/b", "a", ""] and ancestors("") == [""]


def test_topic_objects_and_asparent_resolution(eng):
    ex = eng.mqsc_exec
    assert ex.run("DEFINE TOPIC(SPORTS) TOPICSTR('Sports') PUB(DISABLED) DEFPRTY(7)").status == "ok"
    assert ex.run("DEFINE TOPIC(FOOT) TOPICSTR('Sports/Football') DEFPSIST(YES)").status == "ok"
    r = ex.run("DEFINE TOPIC(AGAIN) TOPICSTR('Sports')")
    assert r.status == "error" and "MQRCCF_TOPICSTR_ALREADY_EXISTS" in r.lines[0]
    assert ex.run("DEFINE TOPIC(NOSTR)").status == "syntax"
    out = "\n".join(ex.run("DISPLAY TPSTATUS('Sports/Football/Results') DEFPRTY DEFPSIST PUB SUB ADMIN").lines)
    # Results has no object: the node inherits FOOT's DEFPSIST, SPORTS' PUB and DEFPRTY, the base's SUB.
    assert "TOPICSTR(Sports/Football/Results)" not in out      # not a node of the tree yet
    out = "\n".join(ex.run("DISPLAY TPSTATUS('Sports/Football') DEFPRTY DEFPSIST PUB SUB ADMIN").lines)
    for text in ("DEFPRTY(7)", "DEFPSIST(YES)", "PUB(DISABLED)", "SUB(ENABLED)", "ADMIN(FOOT)"):
        assert text in out, text
    assert ex.run("ALTER TOPIC(SPORTS) PUB(ASPARENT) DEFPRTY(ASPARENT)").status == "ok"
    out = "\n".join(ex.run("DISPLAY TPSTATUS('Sports/#') PUB DEFPRTY").lines)
    assert out.count("PUB(ENABLED)") == 2 and out.count("DEFPRTY(0)") == 2
    assert ex.run("ALTER TOPIC(SPORTS) TOPICSTR('Other')").status == "syntax"
    assert ex.run("DEFINE TOPIC(BAD) TOPICSTR('x') DEFPRTY(10)").status == "syntax"
    shown = "\n".join(ex.run("DISPLAY TOPIC(SYSTEM.BASE.TOPIC) ALL").lines)
    for text in ("PUB(ENABLED)", "DURSUB(YES)", "MDURMDL(SYSTEM.DURABLE.MODEL.QUEUE)", "PMSGDLV(ALLDUR)",
                 "NPMSGDLV(ALLAVAIL)", "DEFPRESP(SYNC)", "PROXYSUB(FIRSTUSE)", "WILDCARD(PASSTHRU)"):
        assert text in shown, text
    assert ex.run("DELETE TOPIC(FOOT)").status == "ok"
    assert "AMQ8147E" in ex.run("DISPLAY TPSTATUS('Sports/Football')").lines[0]
    assert "PSMODE(ENABLED)" in "\n".join(ex.run("DISPLAY QMGR PSMODE").lines)
