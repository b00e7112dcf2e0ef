"""The administration console (issue 67) in a real browser against a queue manager made as crtmqm
makes it (security on) and mqweb: IBM's MQ Console getting-started tasks without the command line
(define a queue, put and browse a message, stop a channel, set an authority record), objects
created like another, altered with MQ's errors and deleted, messages decoded, moved, copied,
deleted and retried off the dead-letter queue, channel, listener, service and connection
operations, CHLAUTH's RUNCHECK, the MQSC box, dashboards from the statistics and event queues,
the roles and the CSRF header on the console API, and no JavaScript errors on any page."""
from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.objects.attrs import ATTRS
from mqlite.objects.help import HELP
from mqlite.pymqi import CMQC
from mqlite.testing import Harness, run_mqlite
from tests.web.browser import browser, click, go, has, js, js_errors, log_in, shot, text, type_into, until
from tests.web.conftest import call, web_user

SETUP = """DEFINE QLOCAL(APP.ORDERS) DESCR('orders')
DEFINE QLOCAL(APP.ARCHIVE)
DEFINE QLOCAL(APP.DEAD)
ALTER QMGR DEADQ(APP.DEAD)
DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) REPLACE
DEFINE CHANNEL(TO.NOWHERE) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(APP.ARCHIVE)
DEFINE LISTENER(APP.LSTR) TRPTYPE(TCP) PORT(0) CONTROL(MANUAL)
DEFINE SERVICE(APP.SLEEPER) SERVTYPE(SERVER) STARTCMD('/bin/sleep') STARTARG('60')
SET CHLAUTH('APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("console")), security=True)
    try:
        qm = h.add("ADMQM", SETUP)
        port = free_port()
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", "-1"),
                           ("authFailDelay", "0.2")):
            assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
        web_user(env, "ADMQM", "admin", "passw0rd", "mqm", "MQWebAdminGroup")
        web_user(env, "ADMQM", "reader", "passw0rd", "MQWebAdminROGroup")
        web_user(env, "ADMQM", "appuser", "passw0rd", "apps")            # (the group the authority test names)
        r = run_mqlite("strmqweb", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        b = browser()
        try:
            log_in(b, f"http://127.0.0.1:{port}")
            yield {"qm": qm, "base": f"http://127.0.0.1:{port}", "env": env, "data": h.data_dir, "browser": b}
            assert js_errors(b) == []                          # no JavaScript errors on any page of the module
        finally:
            b.quit()
            run_mqlite("endmqweb", env=env)
    finally:
        h.close()


@pytest.fixture
def b(site: dict[str, Any]) -> Any:
    return site["browser"]                  # (signed in once: the session's cookie serves every page after)


def mqsc(site: dict[str, Any], text_: str) -> str:
    return str(site["qm"].mqsc(text_).stdout)


def connect(site: dict[str, Any]) -> Any:
    old = os.environ.get("MQLITE_DATA")
    os.environ["MQLITE_DATA"] = site["data"]
    try:
        return pymqi.QueueManager("ADMQM")
    finally:
        if old is None:
            os.environ.pop("MQLITE_DATA", None)
        else:
            os.environ["MQLITE_DATA"] = old


def notice_with(b: Any, words: str) -> None:
    until(b, lambda b: words in text(b, "#notices"), f"a notice with {words!r}: {text(b, '#notices')!r}")


def dialog_button(b: Any, label: str) -> None:
    js(b, "[...document.querySelectorAll('dialog[open] .actions button')].find(x => x.textContent === arguments[0]).click()",
       label)


def test_ibms_getting_started_tasks_without_the_command_line(site: dict[str, Any], b: Any) -> None:
    """Define a queue, put a message to it and browse it, stop a channel, set an authority record:
    each through the console's forms, each shown as the MQSC it runs, each checked with runmqsc."""
    base = site["base"]
    # 1. Define a queue: the form starts from SYSTEM.DEFAULT.LOCAL.QUEUE; the MQSC names only what changed.
    go(b, base, "#/qm/ADMQM/queues", "#create")
    click(b, "#create")
    until(b, lambda b: has(b, "#f-name") and has(b, "#f-MAXDEPTH"), "the create form")
    assert "from SYSTEM.DEFAULT.LOCAL.QUEUE" in text(b, "#view h1")
    type_into(b, "#f-name", "DEV.QUEUE.1")
    type_into(b, "#f-MAXDEPTH", "20000")
    type_into(b, "#f-DESCR", "made in the console")
    until(b, lambda b: text(b, "#mqsc-preview") == "DEFINE QLOCAL(DEV.QUEUE.1) DESCR('made in the console') MAXDEPTH(20000)",
          text(b, "#mqsc-preview"))
    shot(b, "create-queue")
    click(b, "#create-object")
    until(b, lambda b: "QLOCAL DEV.QUEUE.1" in text(b, "#view h1"), "the new queue's page")
    notice_with(b, "AMQ8006I")
    out = mqsc(site, "DISPLAY QLOCAL(DEV.QUEUE.1) MAXDEPTH DESCR")
    assert "MAXDEPTH(20000)" in out and "DESCR(made in the console)" in out
    # 2. Put a message (text, a property, persistent) and browse it: body, property and MQMD shown.
    go(b, base, "#/qm/ADMQM/messages/DEV.QUEUE.1", "#put-message")
    click(b, "#put-message")
    until(b, lambda b: has(b, "dialog[open] #put-body"))
    type_into(b, "#put-body", '{"order": 42, "item": "widget"}')
    js(b, "document.getElementById('put-persistence').value = '1'")
    type_into(b, "#put-properties", "region=emea\nqty=3")
    dialog_button(b, "Put")
    notice_with(b, "Put ")
    until(b, lambda b: text(b, "#message-count") == "1 message", text(b, "#message-count"))
    until(b, lambda b: has(b, "#message-detail"))
    assert json.loads(text(b, "#message-body")) == {"order": 42, "item": "widget"}       # the JSON view, pretty
    assert '\n  "order": 42' in text(b, "#message-body")
    assert text(b, "#message-properties [data-property=region]") == "emea"
    assert text(b, "#message-properties [data-property=qty]") == "3"
    assert text(b, "#message-md [data-field=persistence]") == "1" and text(b, "#message-md [data-field=format]") == "MQSTR"
    click(b, ".tabs [data-view=Hex]")
    until(b, lambda b: text(b, "#message-body").startswith("00000000  7b 22 6f 72"), text(b, "#message-body")[:40])
    shot(b, "browse")
    qm = connect(site)
    try:
        q = pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_BROWSE)
        md = pymqi.MD()
        body = q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_PROPERTIES))
        assert json.loads(body) == {"order": 42, "item": "widget"} and md.Persistence == 1
        q.close()
    finally:
        qm.disconnect()
    # 3. Stop a channel (a server-connection channel: MQ stops it and leaves it STOPPED).
    go(b, base, "#/qm/ADMQM/channels", "#object-list tr[data-name='APP.SVRCONN']")
    click(b, "#object-list tr[data-name='APP.SVRCONN'] [data-action=stop]")
    until(b, lambda b: has(b, "dialog[open] #stop-mode"))
    js(b, "const m = document.getElementById('stop-mode'); m.value = 'FORCE'; m.dispatchEvent(new Event('change', {bubbles: true}))")
    assert text(b, "#dialog-mqsc") == "STOP CHANNEL(APP.SVRCONN) MODE(FORCE) STATUS(STOPPED)"
    dialog_button(b, "Stop")
    notice_with(b, "AMQ8019I")
    until(b, lambda b: "STOPPED" in text(b, "#object-list tr[data-name='APP.SVRCONN']"), "the channel STOPPED")
    assert "STATUS(STOPPED)" in mqsc(site, "DISPLAY CHSTATUS(APP.SVRCONN)")
    click(b, "#object-list tr[data-name='APP.SVRCONN'] [data-action=start]")
    notice_with(b, "AMQ8018I")
    # 4. Set an authority record for a group on a profile.
    go(b, base, "#/qm/ADMQM/security", "#authrec-form")
    type_into(b, "#ar-profile", "DEV.**")
    js(b, "document.getElementById('ar-objtype').value = 'QUEUE'")
    type_into(b, "#ar-entity", "apps")
    js(b, "for (const o of document.getElementById('ar-add').options) o.selected = ['BROWSE', 'GET', 'PUT', 'INQ'].includes(o.value);"
          "document.getElementById('authrec-form').dispatchEvent(new Event('change'))")
    until(b, lambda b: text(b, "#mqsc-preview") ==
          "SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) GROUP('apps') AUTHADD(BROWSE,GET,INQ,PUT)", text(b, "#mqsc-preview"))
    click(b, "#set-authrec")
    until(b, lambda b: "AMQ8862I" in text(b, "#mqsc-result"), text(b, "#result"))
    until(b, lambda b: has(b, "#authrecs tr[data-name='DEV.**']"), "the record listed")
    shot(b, "authority")
    out = mqsc(site, "DISPLAY AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE)")
    assert "ENTITY(apps)" in out and "AUTHLIST(BROWSE,GET,INQ,PUT)" in out


def test_create_like_alter_with_mqs_errors_and_delete(site: dict[str, Any], b: Any) -> None:
    base = site["base"]
    go(b, base, "#/qm/ADMQM/object/QLOCAL/APP.ORDERS", "#f-DESCR")
    assert js(b, "return document.getElementById('f-DESCR').value") == "orders"
    assert js(b, "return document.getElementById('f-SHARE').checked") is True              # a flag as a checkbox
    assert js(b, "return [...document.getElementById('f-DEFPSIST').options].map(o => o.value)") == ["NO", "YES"]
    assert "Whether messages are persistent by default." in text(b, "#f-DEFPSIST-help")
    assert js(b, "return document.getElementById('f-CURDEPTH').disabled") is True           # display only
    # MQ's own error, as runmqsc words it: a value out of range.
    type_into(b, "#f-DEFPRTY", "12")
    until(b, lambda b: text(b, "#mqsc-preview") == "ALTER QLOCAL(APP.ORDERS) DEFPRTY(12)")
    click(b, "#alter")
    until(b, lambda b: "AMQ8405I" in text(b, "#mqsc-result"), text(b, "#result"))
    assert "DEFPRTY(0)" in mqsc(site, "DISPLAY QLOCAL(APP.ORDERS) DEFPRTY")                  # nothing changed
    go(b, base, "#/qm/ADMQM/object/QLOCAL/APP.ORDERS", "#f-DESCR")
    js(b, "const e = document.getElementById('f-SHARE'); e.checked = false; e.dispatchEvent(new Event('change', {bubbles: true}))")
    type_into(b, "#f-DESCR", "orders, one at a time")
    until(b, lambda b: text(b, "#mqsc-preview") == "ALTER QLOCAL(APP.ORDERS) DESCR('orders, one at a time') NOSHARE",
          text(b, "#mqsc-preview"))
    click(b, "#alter")
    notice_with(b, "AMQ8008I")
    out = mqsc(site, "DISPLAY QLOCAL(APP.ORDERS) DESCR SHARE")
    assert "NOSHARE" in out and "DESCR(orders, one at a time)" in out
    # Create like: DEFINE ... LIKE(...) with only what differs.
    go(b, base, "#/qm/ADMQM/new/QLOCAL?like=APP.ORDERS", "#f-name")
    type_into(b, "#f-name", "APP.ORDERS.COPY")
    until(b, lambda b: text(b, "#mqsc-preview") == "DEFINE QLOCAL(APP.ORDERS.COPY) LIKE(APP.ORDERS)")
    click(b, "#create-object")
    notice_with(b, "AMQ8006I")
    assert "NOSHARE" in mqsc(site, "DISPLAY QLOCAL(APP.ORDERS.COPY) SHARE")
    # An object type of each group made from its form: a topic, a namelist (a list field), a subscription.
    for hash_, name, fill, expected, shown in [
            ("#/qm/ADMQM/new/TOPIC", "APP.NEWS", {"#f-TOPICSTR": "app/news"}, "DEFINE TOPIC(APP.NEWS) TOPICSTR('app/news')", "AMQ8690I"),
            ("#/qm/ADMQM/new/NAMELIST", "APP.NL", {"#f-NAMES": "APP.ORDERS\nAPP.ARCHIVE"},
             "DEFINE NAMELIST(APP.NL) NAMES('APP.ORDERS','APP.ARCHIVE')", "AMQ8552I"),
            ("#/qm/ADMQM/new/SUB", "app news", {"#f-TOPICSTR": "app/news", "#f-DEST": "APP.ARCHIVE"},
             "DEFINE SUB('app news') TOPICSTR('app/news') DEST('APP.ARCHIVE')", "AMQ8094I")]:
        go(b, base, hash_, "#f-name")
        type_into(b, "#f-name", name)
        for css, value in fill.items():
            type_into(b, css, value)
        until(b, lambda b: text(b, "#mqsc-preview") == expected, f"{expected} / {text(b, '#mqsc-preview')}")
        click(b, "#create-object")
        notice_with(b, shown)                   # (a refusal would stay on the form, its answer shown)
    assert "NAMES(APP.ORDERS" in mqsc(site, "DISPLAY NAMELIST(APP.NL) NAMES")
    assert "DEST(APP.ARCHIVE)" in mqsc(site, "DISPLAY SUB('app news') DEST")
    # Delete from the list, after a confirmation that shows the MQSC.
    go(b, base, "#/qm/ADMQM/queues", "#object-list tr[data-name='APP.ORDERS.COPY']")
    shot(b, "queues")
    click(b, "#object-list tr[data-name='APP.ORDERS.COPY'] button.danger")
    until(b, lambda b: "DELETE QLOCAL(APP.ORDERS.COPY)" in text(b, "dialog[open] pre"))
    dialog_button(b, "Run")
    notice_with(b, "AMQ8007I")
    assert "AMQ8147E" in mqsc(site, "DISPLAY QLOCAL(APP.ORDERS.COPY)")
    # The list: filter (generic with *), columns picked, kept across visits.
    go(b, base, "#/qm/ADMQM/queues", "#object-list")
    type_into(b, ".filter", "APP.A*")
    until(b, lambda b: js(b, "return [...document.querySelectorAll('#object-list tbody tr')].map(r => r.dataset.name)") ==
          ["APP.ARCHIVE"])
    click(b, "details.columns summary")                   # (opened: every attribute of the table offered)
    until(b, lambda b: has(b, "details.columns input[value=DEFPSIST]"), "every attribute in the picker")
    js(b, "const c = document.querySelector('details.columns input[value=DEFPSIST]'); c.click()")
    until(b, lambda b: "DEFPSIST" in text(b, "#object-list thead"))
    go(b, base, "#/qm/ADMQM/queues", "#object-list")
    assert "DEFPSIST" in text(b, "#object-list thead")


def _dead_letter(qm: Any, dest: str, body: bytes) -> bytes:
    dlh = pymqi.DLH(Reason=CMQC.MQRC_Q_FULL, DestQName=dest.encode(), DestQMgrName=b"ADMQM",
                    Format=CMQC.MQFMT_STRING, CodedCharSetId=1208, Encoding=CMQC.MQENC_NATIVE)
    md = pymqi.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER, CodedCharSetId=1208)
    qm.put1("APP.DEAD", dlh.pack() + body, md)
    return bytes(md.MsgId)


def test_a_page_still_loading_does_not_draw_over_the_next_one(site: dict[str, Any], b: Any) -> None:
    """A page whose answers come late (a loaded machine: the object view's two requests) and a
    link followed meanwhile: the late page used to draw itself over the new one (seen in CI as the
    create form of a SUB replaced by the NAMELIST just created). Each route now draws into a view
    of its own; a late one draws into nothing anyone sees."""
    base = site["base"]
    go(b, base, "#/qm/ADMQM/queues", "#object-list tr[data-name='APP.ORDERS']")
    # The console's requests for objects held back 1.5 s, in the page itself.
    js(b, "const real = window.fetch; window.fetch = (url, init) => String(url).includes('/objects/') "
          "? new Promise((ok) => setTimeout(ok, 1500)).then(() => real(url, init)) : real(url, init);")
    js(b, "location.hash = '#/qm/ADMQM/object/QLOCAL/APP.ORDERS'")
    time.sleep(0.2)
    js(b, "location.hash = '#/qm/ADMQM/mqsc'")
    until(b, lambda b: has(b, "#mqsc-command") and not has(b, "#f-DESCR"), "the MQSC page")
    time.sleep(2.5)                                             # the late object view's answers came
    assert has(b, "#mqsc-command") and not has(b, "#f-DESCR"), text(b, "#view")[:300]
    assert b.current_url.endswith("#/qm/ADMQM/mqsc")


def test_messages_moved_copied_deleted_and_retried(site: dict[str, Any], b: Any) -> None:
    base = site["base"]
    mqsc(site, "CLEAR QLOCAL(APP.ARCHIVE)\nCLEAR QLOCAL(APP.DEAD)\nDEFINE QLOCAL(APP.WORK)")
    qm = connect(site)
    try:
        ids = []
        for i in range(4):
            md = pymqi.MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"C%d" % i)
            qm.put1("APP.WORK", b"work %d" % i, md)
            ids.append(bytes(md.MsgId).hex())
        dead = _dead_letter(qm, "APP.ORDERS", b"came back")
    finally:
        qm.disconnect()
    go(b, base, "#/qm/ADMQM/messages/APP.WORK", "#messages")
    until(b, lambda b: text(b, "#message-count") == "4 messages")
    # Delete one: the second.
    js(b, "document.querySelector(`#messages tr[data-msgid='${arguments[0]}'] input`).click()", ids[1])
    click(b, "#delete-messages")
    dialog_button(b, "Delete")
    until(b, lambda b: text(b, "#message-count") == "3 messages")
    # Copy the first to APP.ARCHIVE (context kept), then move the rest there.
    js(b, "document.querySelector(`#messages tr[data-msgid='${arguments[0]}'] input`).click()", ids[0])
    click(b, "#move-messages")
    type_into(b, "#move-to", "APP.ARCHIVE")
    js(b, "document.getElementById('move-copy').click()")
    dialog_button(b, "Go")
    notice_with(b, "Copied 1 message(s) to APP.ARCHIVE")
    until(b, lambda b: not js(b, "return [...document.querySelectorAll('#messages input')].some(c => c.checked)"),
          "nothing selected after the copy")
    click(b, "#move-messages")
    type_into(b, "#move-to", "APP.ARCHIVE")
    dialog_button(b, "Go")
    notice_with(b, "Moved 3 message(s) to APP.ARCHIVE")
    until(b, lambda b: text(b, "#message-count") == "0 messages")
    qm = connect(site)
    try:
        q = pymqi.Queue(qm, "APP.ARCHIVE", CMQC.MQOO_INPUT_SHARED)
        got = []
        for _ in range(4):
            md = pymqi.MD()
            got.append((q.get(None, md), bytes(md.MsgId).hex(), bytes(md.CorrelId)[:2], md.Persistence))
        q.close()
    finally:
        qm.disconnect()
    assert sorted(g[0] for g in got) == [b"work 0", b"work 0", b"work 2", b"work 3"]
    assert {g[1] for g in got} == {ids[0], ids[2], ids[3]}                  # the same MsgIds: context kept
    assert all(g[3] == 1 and g[2] == b"C" + g[0][-1:] for g in got)
    # The dead-letter queue: the MQDLH decoded; Retry puts the message where it was going.
    go(b, base, "#/qm/ADMQM/messages/APP.DEAD", "#messages")
    until(b, lambda b: has(b, "#dlh"))
    assert text(b, "#dlh [data-dlh=reasonName]") == "MQRC_Q_FULL" and text(b, "#dlh [data-dlh=destQueue]") == "APP.ORDERS"
    assert text(b, "#message-body") == "came back"
    shot(b, "dead-letters")
    click(b, "#retry-messages")
    until(b, lambda b: "put to APP.ORDERS" in text(b, "#retry-result"), text(b, "#result"))
    until(b, lambda b: text(b, "#message-count") == "0 messages")
    qm = connect(site)
    try:
        q = pymqi.Queue(qm, "APP.ORDERS", CMQC.MQOO_INPUT_SHARED)
        md = pymqi.MD(MsgId=dead)
        assert q.get(None, md, pymqi.GMO(MatchOptions=CMQC.MQMO_MATCH_MSG_ID)) == b"came back"
        assert md.Format == CMQC.MQFMT_STRING
        q.close()
    finally:
        qm.disconnect()
    # Clear a queue (CLEAR QLOCAL after a confirmation).
    qm = connect(site)
    try:
        for i in range(3):
            qm.put1("APP.WORK", b"x", pymqi.MD())
    finally:
        qm.disconnect()
    go(b, base, "#/qm/ADMQM/messages/APP.WORK", "#messages")
    until(b, lambda b: text(b, "#message-count") == "3 messages")
    click(b, "#clear-queue")
    dialog_button(b, "Run")
    until(b, lambda b: "AMQ8022I" in text(b, "#mqsc-result"))
    until(b, lambda b: text(b, "#message-count") == "0 messages")


def test_channel_listener_service_and_connection_operations(site: dict[str, Any], b: Any) -> None:
    base = site["base"]
    go(b, base, "#/qm/ADMQM/channels", "#object-list tr[data-name='TO.NOWHERE']")
    row = "#object-list tr[data-name='TO.NOWHERE']"
    click(b, row + " [data-action=ping]")                        # nothing listens there: MQ's error, as runmqsc words it
    until(b, lambda b: "AMQ" in text(b, "#notices"))
    assert "AMQ8020I" not in text(b, "#notices")
    click(b, row + " [data-action=reset]")
    until(b, lambda b: has(b, "dialog[open] #reset-seq"))
    type_into(b, "#reset-seq", "7")
    until(b, lambda b: text(b, "#dialog-mqsc") == "RESET CHANNEL(TO.NOWHERE) SEQNUM(7)")
    dialog_button(b, "Reset")
    notice_with(b, "AMQ8023I")
    # Notices expire (5 s, errors 12 s), so counting them races a slow machine: the ones already
    # shown are marked, and RESOLVE's answer is the first notice without the mark.
    js(b, "document.querySelectorAll('#notices .notice').forEach(n => n.dataset.seen = '1')")
    click(b, row + " [data-action=resolve]")
    dialog_button(b, "Back out")
    fresh = "return [...document.querySelectorAll('#notices .notice:not([data-seen])')].map(n => n.textContent).join(' | ')"
    until(b, lambda b: js(b, fresh), "RESOLVE's answer")
    assert "AMQ" in js(b, fresh)
    # A listener and a service, started and stopped; their status in the list.
    go(b, base, "#/qm/ADMQM/listeners", "#object-list tr[data-name='APP.LSTR']")
    click(b, "#object-list tr[data-name='APP.LSTR'] [data-action=start]")
    notice_with(b, "AMQ8021I")
    until(b, lambda b: "RUNNING" in text(b, "#object-list tr[data-name='APP.LSTR']"))
    click(b, "#object-list tr[data-name='APP.LSTR'] [data-action=stop]")
    notice_with(b, "AMQ8706I")
    until(b, lambda b: "STOPPED" in text(b, "#object-list tr[data-name='APP.LSTR']"))
    go(b, base, "#/qm/ADMQM/services", "#object-list tr[data-name='APP.SLEEPER']")
    click(b, "#object-list tr[data-name='APP.SLEEPER'] [data-action=start]")
    notice_with(b, "AMQ8733I")
    until(b, lambda b: "RUNNING" in text(b, "#object-list tr[data-name='APP.SLEEPER']"))
    click(b, "#object-list tr[data-name='APP.SLEEPER'] [data-action=stop]")
    notice_with(b, "AMQ8732I")
    # A connection shown, then stopped (STOP CONN): the application sees 2009 or 2161 next.
    qm = connect(site)
    try:
        qm.inquire(CMQC.MQCA_Q_MGR_NAME)
        go(b, base, "#/qm/ADMQM/connections", "#connections")
        conn = js(b, "return [...document.querySelectorAll('#connections tbody tr')].filter(r => r.cells[6].textContent === arguments[0])"
                     ".map(r => r.dataset.name)", str(os.getpid()))                 # (this process's: the PID column)
        assert conn, text(b, "#connections")
        click(b, f"#connections tr[data-name='{conn[0]}'] [data-action=stop]")
        dialog_button(b, "Run")
        notice_with(b, "AMQ8457I")
        deadline = time.monotonic() + 10
        with pytest.raises(pymqi.MQMIError) as e:
            while time.monotonic() < deadline:
                qm.inquire(CMQC.MQCA_Q_MGR_NAME)
                time.sleep(0.1)
        assert e.value.reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_CONNECTION_STOPPED, CMQC.MQRC_Q_MGR_STOPPING)
    finally:
        try:
            qm.disconnect()
        except (pymqi.MQMIError, pymqi.PYIFError):
            pass                                        # (the connection the console stopped)
    go(b, base, "#/qm/ADMQM/status", "#qmstatus")
    assert text(b, "#qmstatus [data-field=STATUS]") == "RUNNING"


def test_chlauth_rules_and_runcheck(site: dict[str, Any], b: Any) -> None:
    base = site["base"]
    go(b, base, "#/qm/ADMQM/security?tab=chlauth", "#chlauth-form")
    type_into(b, "#ca-channel", "*")                               # (BLOCKADDR is the whole queue manager's)
    js(b, "const t = document.getElementById('ca-type'); t.value = 'BLOCKADDR'; t.dispatchEvent(new Event('change', {bubbles: true}))")
    type_into(b, "#ca-addrlist", "192.0.2.66")
    until(b, lambda b: text(b, "#ca-preview") == "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('192.0.2.66')", text(b, "#ca-preview"))
    js(b, "document.getElementById('rc-channel').dataset.before = 'yes'")
    click(b, "#set-chlauth")
    until(b, lambda b: "AMQ8877I" in text(b, "#mqsc-result"), text(b, "#result"))
    # The view is drawn again with the rules read back (after the answer is shown): its fields are new.
    until(b, lambda b: js(b, "const e = document.getElementById('rc-channel'); return !!e && !e.dataset.before"),
          "the chlauth view drawn again")
    # Would it be allowed? MQ's MATCH(RUNCHECK) for an address the rule blocks and one it does not.
    type_into(b, "#rc-channel", "APP.SVRCONN")
    type_into(b, "#rc-address", "192.0.2.66")
    click(b, "#runcheck")
    until(b, lambda b: "BLOCKADDR" in text(b, "#runcheck-output"), text(b, "#runcheck-result"))
    type_into(b, "#rc-address", "192.0.2.7")
    click(b, "#runcheck")
    until(b, lambda b: "ADDRESSMAP" in text(b, "#runcheck-output") and "BLOCKADDR" not in text(b, "#runcheck-output"),
          text(b, "#runcheck-result"))
    shot(b, "chlauth")
    # Roles of the one signed in.
    go(b, base, "#/qm/ADMQM/security?tab=roles", "#roles")
    assert text(b, "#roles tr[data-role=MQWebAdmin] td") == "yes" and text(b, "#roles tr[data-role=MQWebAdminRO] td") == "no"


def test_the_mqsc_box_with_history(site: dict[str, Any], b: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    go(b, site["base"], "#/qm/ADMQM/mqsc", "#mqsc-command")
    box = b.find_element(By.ID, "mqsc-command")
    box.send_keys("DISPLAY QLOCAL(APP.ARCH*) CURDEPTH", Keys.ENTER)
    until(b, lambda b: "AMQ8409I: Display Queue details." in text(b, "#mqsc-log"))
    assert "QUEUE(APP.ARCHIVE)" in text(b, "#mqsc-log") and "CURDEPTH(" in text(b, "#mqsc-log")
    box.send_keys("DEFINE QLOCAL(APP.ARCHIVE)", Keys.ENTER)                       # MQ's answer to a repeat
    until(b, lambda b: "AMQ8150E: IBM MQ object already exists." in text(b, "#mqsc-log"))
    assert has(b, "#mqsc-log .mqsc-output .error")
    box.send_keys(Keys.ARROW_UP, Keys.ARROW_UP)
    assert box.get_attribute("value") == "DISPLAY QLOCAL(APP.ARCH*) CURDEPTH"
    shot(b, "mqsc")


def test_dashboards_from_statistics_and_events(site: dict[str, Any], b: Any) -> None:
    mqsc(site, "ALTER QMGR STATQ(ON) STATINT(1) PERFMEV(ENABLED)\nDEFINE QLOCAL(APP.SMALL) MAXDEPTH(2) QDPMAXEV(ENABLED)")
    qm = connect(site)
    try:
        for _ in range(3):                                     # the third: queue full, a performance event
            try:
                qm.put1("APP.SMALL", b"x", pymqi.MD())
            except pymqi.MQMIError as e:
                assert e.reason == CMQC.MQRC_Q_FULL
        q = pymqi.Queue(qm, "APP.SMALL", CMQC.MQOO_INPUT_SHARED)
        q.get(None)
        q.close()
    finally:
        qm.disconnect()
    go(b, site["base"], "#/qm/ADMQM/dashboard", "#tiles .big")
    until(b, lambda b: has(b, "#depths tr[data-queue='APP.SMALL']"), "the depth chart")
    until(b, lambda b: has(b, "#rate-table tr[data-queue='APP.SMALL']"), "the statistics (STATINT 1)")
    until(b, lambda b: "MQRC_Q_FULL" in text(b, "#event-list"), "the queue-full event")
    assert "PERFM.EVENT" in text(b, "#event-list") and "APP.SMALL" in text(b, "#event-list")
    until(b, lambda b: has(b, "#channel-states tr[data-channel='APP.SVRCONN'] svg.timeline rect"))
    shot(b, "dashboard")
    mqsc(site, "ALTER QMGR STATQ(OFF) PERFMEV(DISABLED)")
    # The statistics and events were browsed, not taken: a monitoring tool still gets them.
    assert "CURDEPTH(0)" not in mqsc(site, "DISPLAY QLOCAL(SYSTEM.ADMIN.PERFM.EVENT) CURDEPTH")


def test_console_api_roles_csrf_and_bad_input(site: dict[str, Any]) -> None:
    api = site["base"] + "/ibmmq/console/api"
    reader = "Basic " + base64.b64encode(b"reader:passw0rd").decode()
    admin = "Basic " + base64.b64encode(b"admin:passw0rd").decode()
    put = {"body": "hello", "md": {"priority": 7}, "properties": {"k": 1}}
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS", "POST", put, auth=admin, csrf=False)
    assert status == 403 and body["error"][0]["messageId"] == "MQWB0100E"             # no CSRF header
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS", "POST", put, auth=reader)
    assert status == 403 and body["error"][0]["messageId"] == "MQWB0103E"             # MQWebAdminRO: no changes
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS", "GET", auth=reader)
    assert status == 200 and isinstance(body["messages"], list)                       # ... but browses
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS", "POST", put, auth=admin)
    assert status == 201 and len(body["messageId"]) == 48
    msgid = body["messageId"]
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS", "GET", auth=admin)
    (mine,) = [m for m in body["messages"] if m["md"]["messageId"] == msgid]
    assert mine["md"]["priority"] == 7 and mine["properties"] == {"k": 1} and base64.b64decode(mine["body"]) == b"hello"
    status, _h, _body = call(api + f"/messages/ADMQM/APP.ORDERS/{msgid}", "DELETE", auth=admin)
    assert status == 204
    for bad, word in [({"body": "zz", "bodyEncoding": "hex"}, "hex"), ({"md": {"putDate": "x"}}, "putDate"),
                      ({"md": {"priority": "high"}}, "priority"), ({"properties": {"": 1}}, "property")]:
        status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS", "POST", bad, auth=admin)
        assert status == 400 and body["error"][0]["messageId"] == "MQWB0302E" and word in body["error"][0]["message"], body
    status, _h, body = call(api + "/messages/ADMQM/NO.SUCH.QUEUE", "GET", auth=admin)
    assert status == 404 and body["error"][0]["reasonCode"] == 2085
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS/" + "00" * 24, "DELETE", auth=admin)
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0304E"
    status, _h, body = call(api + "/messages/ADMQM/APP.ORDERS/move", "POST", {"to": "APP.ORDERS"}, auth=admin)
    assert status == 400
    status, _h, body = call(api + "/objects/ADMQM/qlocal?name=APP.ORDERS", "GET", auth=None)
    assert status == 401
    status, _h, body = call(api + "/objects/NOQM/qlocal", "GET", auth=admin)
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0009E"
    assert "RUNNING" in mqsc(site, "DISPLAY QMSTATUS")                                 # still running


def test_every_attribute_has_help_and_the_schema_describes_it(site: dict[str, Any]) -> None:
    assert {a.name for a in ATTRS} == set(HELP) and all(HELP.values())
    status, _h, body = call(site["base"] + "/ibmmq/console/api/schema")
    assert status == 200
    types = body["types"]
    assert set(types) >= {"QLOCAL", "QMODEL", "QALIAS", "QREMOTE", "SDR", "SVR", "RCVR", "RQSTR", "CLNTCONN", "SVRCONN",
                          "CLUSSDR", "CLUSRCVR", "AMQP", "MQTT", "TOPIC", "SUB", "LISTENER", "SERVICE", "PROCESS",
                          "NAMELIST", "AUTHINFO", "COMMINFO", "QMGR"}
    ql = {a["name"]: a for a in types["QLOCAL"]["attrs"]}
    assert ql["DEFPSIST"] == {"name": "DEFPSIST", "kind": "enum", "alterable": True, "help": HELP["DEFPSIST"],
                              "default": "NO", "values": ["NO", "YES"]}
    assert ql["MAXDEPTH"]["default"] == 5000 and ql["MAXDEPTH"]["lo"] == 0
    assert ql["SHARE"]["kind"] == "flag" and ql["SHARE"]["off"] == "NOSHARE"
    assert "QSGDISP" not in ql and "CFSTRUCT" not in ql                       # z/OS's, as DISPLAY leaves them out
    assert [a["name"] for a in types["QLOCAL"]["attrs"]][:3] == ["ACCTQ", "ALTDATE", "ALTTIME"]     # DISPLAY's order


def test_keyboard_and_the_page_load_with_many_queues(site: dict[str, Any], b: Any) -> None:
    """The pages work from the keyboard (the login's Enter, dialogs' Escape, sortable headers are
    buttons); the queue list with 1,000 queues comes a page of 50 at a time, all of them on request."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    site["qm"].mqsc("".join(f"DEFINE QLOCAL(LOAD.Q{i:04d})\n" for i in range(1000)))
    start = time.monotonic()
    go(b, site["base"], "#/qm/ADMQM/queues", "#object-list tbody tr")
    took = time.monotonic() - start
    assert took < 5, took                    # (the bench row measures it: bench/rest.py; here a loaded machine's bound)
    count = text(b, "#object-list-count")
    assert int(count.split()[0]) >= 1000 and count.endswith("1-50 shown"), count
    assert js(b, "return document.querySelectorAll('#object-list tbody tr').length") == 50
    click(b, ".table-tools .page-next")
    until(b, lambda b: text(b, "#object-list-count").endswith("51-100 shown"))
    js(b, "const s = document.querySelector('.table-tools .page-size'); s.value = '0'; s.dispatchEvent(new Event('change'))")
    until(b, lambda b: has(b, "#object-list tr[data-name='LOAD.Q0999']"), "all of them on one page")
    shot(b, "queues-1000")
    click(b, "#object-list tr[data-name='LOAD.Q0999'] button.danger")
    until(b, lambda b: has(b, "dialog[open]"))
    b.find_element(By.CSS_SELECTOR, "dialog[open]").send_keys(Keys.ESCAPE)
    until(b, lambda b: not has(b, "dialog[open]"), "Escape closes the dialog")
    assert "LOAD.Q0999" in mqsc(site, "DISPLAY QLOCAL(LOAD.Q0999)")             # nothing deleted
    assert js(b, "return document.querySelector('#object-list th button.sort').tagName") == "BUTTON"
    site["qm"].mqsc("".join(f"DELETE QLOCAL(LOAD.Q{i:04d})\n" for i in range(1000)))
