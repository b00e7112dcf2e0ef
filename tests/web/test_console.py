"""The mqweb console against the examples/sales cluster (``mqlite up examples/sales --web``): its
data (one snapshot through the command servers) and the page in a real browser, headless
Chromium from Debian's packages driven by Selenium with Debian's chromium-driver (installed by
tools/services.sh): the cluster view shows the four queue managers and the two full
repositories, a queue's depth sparkline moves after puts, and the workload algorithm's choices
are drawn as flows."""
from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.cli.proc import free_port
from mqlite.testing import run_mqlite
from tests.web.browser import browser, click, go, has, js, js_errors, shot, text, until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AUTH = "Basic " + base64.b64encode(b"admin:passw0rd").decode()


@pytest.fixture(scope="module")
def sales() -> Iterator[dict[str, Any]]:
    data = tempfile.mkdtemp(prefix="mqlite-console-")
    env = dict(os.environ, MQLITE_DATA=data)
    port = free_port()
    try:
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", "-1")):
            assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
        r = run_mqlite("up", os.path.join(ROOT, "examples", "sales"), "--ports", "auto", "--web", env=env,
                       timeout=180)
        assert r.returncode == 0, r.stdout + r.stderr
        assert f"console: http://127.0.0.1:{port}/ibmmq/console/" in r.stdout
        for qmgr in ("FR1", "FR2", "PR1", "PR2"):     # (an administrator of each: mqm, MQWebAdmin's default group)
            r = run_mqlite("setmqusr", "-m", qmgr, "-u", "admin", "-p", "passw0rd", "-g", "mqm", "-g", "MQWebUserGroup",
                           env=env)
            assert r.returncode == 0, r.stdout + r.stderr
        yield {"env": env, "base": f"http://127.0.0.1:{port}", "data": data}
    finally:
        run_mqlite("endmqweb", env=env)
        run_mqlite("down", os.path.join(ROOT, "examples", "sales"), "--delete", env=env, timeout=120)
        shutil.rmtree(data, ignore_errors=True)


def snapshot(sales: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(sales["base"] + "/ibmmq/console/api/snapshot", headers={"Authorization": AUTH})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def put_orders(sales: dict[str, Any], qmgr: str, n: int) -> None:
    """``n`` messages to the cluster queue SALES.ORDERS from ``qmgr`` (bindings, not fixed: the
    workload algorithm chooses an instance for each)."""
    from mqlite import pymqi
    from mqlite.pymqi import CMQC
    old = os.environ.get("MQLITE_DATA")
    os.environ["MQLITE_DATA"] = sales["data"]
    try:
        qm = pymqi.QueueManager(qmgr)
        q = pymqi.Queue(qm, "SALES.ORDERS", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        for i in range(n):
            q.put(f"order {i}".encode(), pymqi.MD(Format=CMQC.MQFMT_STRING))
        q.close()
        qm.disconnect()
    finally:
        if old is None:
            os.environ.pop("MQLITE_DATA", None)
        else:
            os.environ["MQLITE_DATA"] = old


def test_the_snapshot_shows_the_cluster_as_its_members_see_it(sales: dict[str, Any]) -> None:
    snap = snapshot(sales)
    by_name = {q["name"]: q for q in snap["qmgrs"]}
    assert sorted(by_name) == ["FR1", "FR2", "PR1", "PR2"] and all(q["state"] == "running" for q in by_name.values())
    fr1 = by_name["FR1"]
    assert {c["clusqmgr"]: c["qmtype"] for c in fr1["clusqmgrs"]} == {"FR1": "REPOS", "FR2": "REPOS",
                                                                     "PR1": "NORMAL", "PR2": "NORMAL"}
    assert sorted(q["clusqmgr"] for q in fr1["qclusters"] if q["queue"] == "SALES.ORDERS") == ["PR1", "PR2"]
    assert not any(q["queue"].startswith("SYSTEM.") for q in fr1["queues"])     # mqweb's own reply queues too
    put_orders(sales, "FR1", 10)
    time.sleep(1.1)                                                             # (a snapshot is kept a second)
    choices = snapshot(sales)["qmgrs"][0]["workload"]["SALES.ORDERS"]
    assert len(choices) == 10 and {c[1] for c in choices} == {"PR1", "PR2"}    # spread over both instances
    # Without credentials: MQ's 401, nothing leaks.
    try:
        urllib.request.urlopen(sales["base"] + "/ibmmq/console/api/snapshot", timeout=30)
        raise AssertionError("answered without credentials")
    except urllib.error.HTTPError as e:
        assert e.code == 401 and json.loads(e.read())["error"][0]["messageId"] == "MQWB0103E"


# What the page shows, read in one script each (the page redraws every second).
NODES = ("return [...document.querySelectorAll('#cluster-view g.node')]"
         ".map(n => [n.dataset.qmgr, n.dataset.repos, n.textContent])")
CHANNELS = ("return [...document.querySelectorAll('#cluster-view path.chl')]"
            ".map(p => [p.dataset.from, p.dataset.to, p.dataset.status])")
FLOWS = "return [...document.querySelectorAll('#cluster-view path.flow')].map(p => [p.dataset.from, p.dataset.to])"
LOGGED_OUT = ("return document.readyState === 'complete' && !document.getElementById('login').hidden"
              " && document.getElementById('app').hidden && document.getElementById('who').textContent === ''")
SPARK = ("const row = document.querySelector(\"#depths tr[data-queue='SALES.ORDERS']\");"
         "return row ? [row.querySelector('polyline').getAttribute('points'), Number(row.dataset.depth)] : null")


def test_the_console_in_a_real_browser(sales: dict[str, Any]) -> None:
    """docs/web.md's recipe on the four queue managers of examples/sales, as written: sign in, the
    cluster view, a queue's depth over time on its queue manager's dashboard, the workload
    algorithm's choices, a message put and browsed, sign out."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    b = browser()
    base = sales["base"]
    try:
        b.get(base + "/ibmmq/console")
        until(b, lambda b: js(b, "return !document.getElementById('login').hidden"))
        b.find_element(By.ID, "username").send_keys("admin")
        b.find_element(By.ID, "password").send_keys("wrong")
        b.find_element(By.CSS_SELECTOR, "#login-form button").click()
        until(b, lambda b: "MQWB0103E" in text(b, "#login-error"), "the refusal")
        # The right password. Under the full suite's load it was refused twice (MQWB0103E, not
        # reproduced alone or beside CPU hogs; mqweb takes a queue manager it could not ask as one
        # that refused: see the closing note of 2026-12-07): one more try then, and the refusal
        # shown, not the first attempt's, decides.
        for attempt in range(2):
            js(b, "document.getElementById('login-error').textContent = ''")
            b.find_element(By.ID, "password").clear()
            b.find_element(By.ID, "password").send_keys("passw0rd")
            b.find_element(By.CSS_SELECTOR, "#login-form button").click()
            until(b, lambda b: text(b, "#who") or text(b, "#login-error"), "signed in or refused")
            if text(b, "#who") or attempt:
                break
        until(b, lambda b: text(b, "#who") == "admin (MQWebAdmin, MQWebUser)", "signed in")
        # The queue managers, then the cluster view: the four, FR1 and FR2 drawn as full
        # repositories, the cluster channels between them, SALES.ORDERS's instances on PR1 and PR2.
        until(b, lambda b: js(b, "return document.querySelectorAll('#qmgr-cards .card.running').length") == 4)
        shot(b, "queue-managers")
        go(b, base, "#/cluster", "#cluster-view")
        until(b, lambda b: len(js(b, NODES)) == 4)
        nodes = {name: (repos, shown) for name, repos, shown in js(b, NODES)}
        assert sorted(nodes) == ["FR1", "FR2", "PR1", "PR2"]
        assert sorted(k for k, (repos, _t) in nodes.items() if repos == "true") == ["FR1", "FR2"]
        assert "SALES.ORDERS" in nodes["PR1"][1] and "SALES.ORDERS" in nodes["PR2"][1]
        running = {(a, z) for a, z, status in js(b, CHANNELS) if status == "RUNNING"}
        assert running >= {("PR1", "FR1"), ("PR2", "FR2")}
        until(b, lambda b: text(b, "#cluster-instances tr[data-queue='SALES.ORDERS'] td") == "PR1, PR2")
        assert text(b, "#repositories") == "FR1, FR2"
        # PR1's dashboard: SALES.ORDERS's depth line is flat, then rises after puts on PR1.
        go(b, base, "#/qm/PR1/dashboard", "#depths")
        until(b, lambda b: js(b, SPARK) is not None)
        before, depth = js(b, SPARK)
        put_orders(sales, "PR1", 5)               # (PR1 has an instance: local puts stay on it, as MQ prefers)
        until(b, lambda b: (js(b, SPARK) or ["", -1])[1] == depth + 5, "the depth 5 more")
        until(b, lambda b: js(b, SPARK)[0] != before)
        ys = [float(p.split(",")[1]) for p in js(b, SPARK)[0].split()]
        assert min(ys) < max(ys)                                    # the line moved: depth over time
        shot(b, "dashboard-PR1")
        # The workload algorithm's choices from FR1, drawn as flows to both instances and counted.
        put_orders(sales, "FR1", 6)
        go(b, base, "#/cluster", "#cluster-view")
        until(b, lambda b: {to for frm, to in js(b, FLOWS) if frm == "FR1"} == {"PR1", "PR2"}, "the flows")
        until(b, lambda b: sum(int(c) for c in js(b, "return [...document.querySelectorAll('#workload-choices [data-count]')]"
                                                     ".map(e => e.dataset.count)")) >= 6, "the choices counted")
        shot(b, "cluster")
        # Put a message and browse it (the console's messages page).
        go(b, base, "#/qm/PR1/messages/SALES.ORDERS", "#message-count")
        count = int(text(b, "#message-count").split()[0])
        click(b, "#put-message")
        until(b, lambda b: has(b, "dialog[open] #put-body"))
        b.find_element(By.ID, "put-body").send_keys("a test message from the console")
        js(b, "[...document.querySelectorAll('dialog[open] .actions button')].find(x => x.textContent === 'Put').click()")
        until(b, lambda b: text(b, "#message-count").startswith(f"{count + 1} "), "the message listed")
        js(b, "[...document.querySelectorAll('#messages tbody a')].pop().click()")
        until(b, lambda b: text(b, "#message-body") == "a test message from the console", "its body")
        b.find_element(By.ID, "logout").click()
        # Logging out reloads the page: an element found in the old document can be swapped out
        # under a command (chromedriver's "Node ... does not belong to the document"), so the new
        # document is read in one script, and a command caught mid-reload is asked again.
        WebDriverWait(b, 30, ignored_exceptions=(WebDriverException,)).until(lambda b: js(b, LOGGED_OUT))
        assert js_errors(b) == []
    finally:
        b.quit()


def _run_command_json(sales: dict[str, Any], qmgr: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    req = urllib.request.Request(f"{sales['base']}/ibmmq/rest/v2/admin/action/qmgr/{qmgr}/mqsc", method="POST",
                                 data=json.dumps(body).encode(),
                                 headers={"Authorization": AUTH, "Content-Type": "application/json",
                                          "ibm-mq-rest-csrf-token": "x"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return list(json.loads(resp.read())["commandResponse"])


def test_cluster_displays_are_answered_from_pcf(sales: dict[str, Any]) -> None:
    """DISPLAY CLUSQMGR and QCLUSTER in runCommandJSON and the v1 queue resource's cluster queues
    come from PCF (Inquire Cluster Queue Manager, Inquire Queue QType MQQT_CLUSTER): a cluster
    queue's DESCR written as other fields is the DESCR it is, on the queue manager that owns it and
    on the one that learnt it from the cluster; otherwise the answer is what the display shows."""
    from mqlite.web import mqsc as M
    forged = "x) CLUSQMGR(EVIL) QUEUE(PAYROLL"
    r = run_mqlite("runmqsc", "PR1", stdin=f"DEFINE QLOCAL(SALES.FORGED) CLUSTER(SALES) DESCR('{forged}') REPLACE\n",
                   env=sales["env"])
    assert r.returncode == 0, r.stdout
    deadline = time.monotonic() + 60
    while True:
        items = _run_command_json(sales, "FR1", {"type": "runCommandJSON", "command": "display",
                                                 "qualifier": "qcluster", "name": "SALES.FORGED"})
        if items and items[0].get("parameters") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    (item,) = items
    assert (item["parameters"]["queue"], item["parameters"]["clusqmgr"], item["parameters"]["descr"]) == \
        ("SALES.FORGED", "PR1", forged)
    req = urllib.request.Request(f"{sales['base']}/ibmmq/rest/v1/admin/qmgr/FR1/queue?type=cluster&name=SALES.F*",
                                 headers={"Authorization": AUTH})
    with urllib.request.urlopen(req, timeout=30) as resp:
        (queue,) = json.loads(resp.read())["queue"]
    assert (queue["name"], queue["type"]) == ("SALES.FORGED", "cluster")
    for qualifier, name, params in (("clusqmgr", "*", {}), ("qcluster", "SALES.ORDERS", {}),
                                    ("clusqmgr", "*", {"channel": "TO.PR*"}), ("qcluster", "*", {"clusqmgr": "PR2"})):
        body = {"type": "runCommandJSON", "command": "display", "qualifier": qualifier, "name": name,
                "parameters": params}
        words = " ".join(f"{k.upper()}({v})" for k, v in params.items())
        for _attempt in range(5):           # (a channel's STATUS may move between the two asks)
            got = _run_command_json(sales, "FR1", body)
            r = run_mqlite("runmqsc", "FR1", stdin=f"DISPLAY {qualifier.upper()}({name}) {words} ALL\n",
                           env=sales["env"])
            lines = r.stdout.splitlines()
            start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("1 :")) + 1
            end = max(i for i, ln in enumerate(lines) if "MQSC command read" in ln)
            expected = M.json_items("\n".join(lines[start:end]), r.returncode == 0)
            if got == expected:
                break
        assert got == expected and got, (qualifier, params)
