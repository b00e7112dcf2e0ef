"""A controlled endmqm while mqweb holds connections to the queue manager: mqweb's idle connections
honour quiescing (MQOPEN with MQOO_FAIL_IF_QUIESCING answers 2161) and go, so the queue manager
ends in seconds instead of waiting for mqweb forever."""
from __future__ import annotations

import os
import time

from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite
from tests.web.conftest import call, web_user


def test_endmqm_ends_in_seconds_while_mqweb_is_connected(tmp_path) -> None:
    h = Harness(str(tmp_path))
    port = free_port()
    env = dict(os.environ, MQLITE_DATA=h.data_dir)
    try:
        qm = h.add("ENDQM", "DEFINE QLOCAL(END.Q)\n")
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", "-1")):
            assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
        web_user(env, "ENDQM", "admin", "passw0rd", "MQWebAdminGroup", "MQWebUserGroup")
        assert run_mqlite("strmqweb", env=env).returncode == 0
        base = f"http://127.0.0.1:{port}/ibmmq/rest"
        auth = "Basic YWRtaW46cGFzc3cwcmQ="                      # admin:passw0rd
        status, _h, _b = call(f"{base}/v2/messaging/qmgr/ENDQM/queue/END.Q/message", "POST",
                              headers={"Content-Type": "text/plain"}, raw=b"kept", auth=auth)
        assert status == 201
        status, _h, body = call(f"{base}/v2/admin/action/qmgr/ENDQM/mqsc", "POST",
                                {"type": "runCommand", "parameters": {"command": "DISPLAY QMSTATUS CONNS"}}, auth=auth)
        assert status == 200 and body["overallCompletionCode"] == 0
        started = time.monotonic()
        r = run_mqlite("endmqm", "-w", "ENDQM", env=env, timeout=60)
        took = time.monotonic() - started
        assert r.returncode == 0 and "ended" in r.stdout, r.stdout + r.stderr
        assert took < 15, f"endmqm -w took {took:.1f} s with mqweb connected"
        status, _h, body = call(f"{base}/v2/admin/qmgr/ENDQM", auth=auth)
        assert status == 200 and body["qmgr"][0]["state"] == "ended"
        assert qm.pid() is None
    finally:
        run_mqlite("endmqweb", env=env)
        h.close()
