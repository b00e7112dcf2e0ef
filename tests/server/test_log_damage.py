"""Damage to the recovery log that loses acknowledged work is refused at strmqm (AMQ7017S), and
``--accept-damage`` starts from what is intact and says what was lost (issue 62): a log cut short,
a damaged extent header, a missing extent, a damaged control file. What a crash leaves (a torn
last frame: tests/server/test_recovery_log.py; an extent begun but never finished) is not damage."""
from __future__ import annotations

import os
import sqlite3
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.engine.ports import DelMsg, PutMsg
from mqlite.pymqi import CMQC
from mqlite.store import log as log_mod
from mqlite.store.log import RecoveryLog, encode
from tests.conftest import mqlite
from tests.server.test_durability import drain

PUTS = 3000


def _body(i: int) -> bytes:
    return b"ack-%05d-" % i + b"d" * 200          # (3,000 of them fit one extent of the log)


def _applied(qdir, name: str) -> None:
    """Wait until the applier has written the definitions (the queue ``name``, the channel before
    it) into qmgr.db: damage to the log after that loses messages, not the objects."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        db = sqlite3.connect(qdir / "qmgr.db")
        try:
            if db.execute("SELECT count(*) FROM objects WHERE name=?", (name,)).fetchone()[0]:
                return
        finally:
            db.close()
        time.sleep(0.1)
    raise AssertionError(f"{name} was not applied to qmgr.db within 60 s")


def _damage(qdir, how: str) -> None:
    logdir = qdir / "qmgr.db-log"
    (extent,) = [p for p in logdir.iterdir() if p.name.endswith(".LOG")]
    used = extent.read_bytes().rfind(b"MQLF")          # the frames end after this (zeros follow)
    if how == "cut50":
        os.truncate(extent, used // 2)
    elif how == "cut10":
        os.truncate(extent, used // 10)
    elif how == "header":
        raw = bytearray(extent.read_bytes())
        raw[13] ^= 0x5A                          # inside the first LSN's bytes
        extent.write_bytes(bytes(raw))
    elif how == "delete":
        extent.unlink()
    elif how == "control":
        ctl = qdir / "qmgr.db-log.ctl"
        raw = bytearray(ctl.read_bytes())
        raw[-2] ^= 0x01
        ctl.write_bytes(bytes(raw))


@pytest.mark.parametrize("how, said", [
    ("cut50", "is cut short"), ("cut10", "is cut short"), ("header", "has a damaged header"),
    ("delete", "is missing"), ("control", "control file is damaged")])
def test_a_damaged_log_after_kill9_refuses_the_start_and_accept_damage_keeps_what_is_intact(
        tmp_path, how, said) -> None:
    """3,000 acknowledged persistent puts, kill -9, then the active log extent is damaged: strmqm
    fails with AMQ7017S and says why in the error log (before, it started and served a part of the
    messages silently); --accept-damage starts, logs MQL7017W with what was lost, and the queue
    holds an in-order prefix of the acknowledged messages, each once (all of them when only the
    control file was damaged)."""
    from mqlite.testing import Harness
    with Harness(data_dir=str(tmp_path)) as h:
        qm = h.add("DMGQM", "DEFINE QLOCAL(D.Q) DEFPSIST(YES) MAXDEPTH(100000)\n")
        qdir = tmp_path / "qmgrs" / "DMGQM"
        _applied(qdir, "D.Q")
        conn = qm.client()
        q = pymqi.Queue(conn, "D.Q", CMQC.MQOO_OUTPUT)
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for i in range(PUTS):
            q.put(_body(i), pymqi.MD(), pmo)
            if i % 50 == 49:
                conn.commit()
        conn.disconnect()
        qm.kill9()
        # The rows the applier wrote behind the log are forgotten, as if it had not yet run: the
        # messages are then in the log alone (what a kill -9 a moment after the puts leaves).
        db = sqlite3.connect(qdir / "qmgr.db")
        db.execute("DELETE FROM messages WHERE queue='D.Q'")
        db.execute("DELETE FROM meta WHERE key='log_applied'")
        db.commit()
        db.close()
        _damage(qdir, how)
        r = mqlite("strmqm", "DMGQM")
        errors = (qdir / "errors" / "AMQERR01.LOG").read_text()
        assert r.returncode != 0 and "AMQ7017S" in r.stdout + r.stderr, r.stdout + r.stderr
        assert said in errors
        r = mqlite("strmqm", "--accept-damage", "DMGQM")
        assert r.returncode == 0, r.stdout + r.stderr
        errors = (qdir / "errors" / "AMQERR01.LOG").read_text()
        assert "MQL7017W" in errors and said in errors.split("MQL7017W", 1)[1]
        conn = qm.client()
        got = drain(conn, "D.Q")
        conn.disconnect()
        assert got == [_body(i) for i in range(len(got))]
        assert len(got) == PUTS if how == "control" else len(got) < PUTS   # (the extents were intact)
        # started again normally, the damaged extents kept aside are not read again
        assert mqlite("endmqm", "-i", "DMGQM").returncode == 0
        assert mqlite("strmqm", "DMGQM").returncode == 0


def test_kill9_with_an_intact_log_is_not_damage(tmp_path) -> None:
    """No false alarm: after kill -9 with the log as the crash left it, strmqm starts and every
    acknowledged message is there."""
    from mqlite.testing import Harness
    with Harness(data_dir=str(tmp_path)) as h:
        qm = h.add("OKQM", "DEFINE QLOCAL(D.Q) DEFPSIST(YES) MAXDEPTH(100000)\n")
        conn = qm.client()
        q = pymqi.Queue(conn, "D.Q", CMQC.MQOO_OUTPUT)
        for i in range(500):
            q.put(_body(i))
        conn.disconnect()
        qm.kill9()
        r = mqlite("strmqm", "OKQM")
        assert r.returncode == 0, r.stdout + r.stderr
        conn = qm.client()
        assert drain(conn, "D.Q") == [_body(i) for i in range(500)]
        conn.disconnect()


# --- the rules, in process --------------------------------------------------------------------------

def _log(d: str, n: int) -> list[list]:
    log = RecoveryLog(d)
    frames = [[PutMsg(i, "Q", b"md", b"b" * 300, None)] for i in range(1, n + 1)]
    for ops in frames:
        log.append(ops)
    log.close()
    return frames


def _extent(d: str) -> str:
    (name,) = [n for n in os.listdir(d) if n.endswith(".LOG")]
    return os.path.join(d, name)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=12), st.data())
def test_an_extent_cut_anywhere_short_of_its_made_length_is_damage(tmp_path_factory, n, data) -> None:
    d = str(tmp_path_factory.mktemp("log"))
    _log(d, n)
    path = _extent(d)
    size = os.path.getsize(path)
    assert size == log_mod.EXTENT_BYTES
    cut = data.draw(st.integers(min_value=0, max_value=size - 1))
    os.truncate(path, cut)
    assert RecoveryLog(d).damage() is not None


def test_a_header_bit_flipped_is_damage_and_a_header_never_written_is_not(tmp_path) -> None:
    d = str(tmp_path / "log")
    _log(d, 3)
    path = _extent(d)
    raw = bytearray(open(path, "rb").read())
    for at in range(log_mod.EXTENT_HEADER.size):
        flipped = bytearray(raw)
        flipped[at] ^= 0x10
        open(path, "wb").write(bytes(flipped))
        assert RecoveryLog(d).damage() is not None, at
    # an extent begun as the crash came, before its header was written: zeros, no frame in it
    open(path, "wb").write(bytes(4096))
    os.unlink(d + ".ctl")
    assert RecoveryLog(d).damage() is None


def test_the_control_file_names_the_extents_as_they_come_and_go(tmp_path, monkeypatch) -> None:
    """Begun, released and reset, the control file names the extents there are; one it names that
    is missing is damage; one it does not name yet (a crash as it was begun) is read."""
    monkeypatch.setattr(log_mod, "EXTENT_BYTES", 4096)
    d = str(tmp_path / "log")
    log = RecoveryLog(d)
    for i in range(1, 40):
        log.append([PutMsg(i, "Q", b"md", b"b" * 700, None), DelMsg(i)])
    names = sorted(n for n in os.listdir(d))
    assert len(names) > 3
    assert [log_mod._name(f) for f in log.listed() or []] == names
    log.release(20)
    left = sorted(os.listdir(d))
    assert [log_mod._name(f) for f in log.listed() or []] == left and len(left) < len(names)
    assert RecoveryLog(d).damage() is None
    os.unlink(os.path.join(d, left[0]))
    assert "is missing" in (RecoveryLog(d).damage() or "")
    log.reset(100)
    assert os.listdir(d) == [] and log.listed() == [] and RecoveryLog(d).damage() is None
    log.close()


def test_extents_begun_and_released_at_once_keep_the_control_file_right(tmp_path, monkeypatch) -> None:
    """The writer begins an extent while the applier releases applied ones: both rewrite the
    control file. Unserialised, the applier's rewrite ran between the writer's write and rename,
    and the rename found its file gone (FileNotFoundError, which ended the applier's thread and
    left every writer waiting for ever: a Spark stream's commit of 50,000 messages hung the queue
    manager). Here the applier is made to run at exactly that moment."""
    import threading
    monkeypatch.setattr(log_mod, "EXTENT_BYTES", 8192)
    monkeypatch.setattr(log_mod, "FILL_BYTES", 0)
    log = RecoveryLog(str(tmp_path / "log"))
    for i in range(1, 4):                                   # three extents, a frame each
        log.append([PutMsg(i, "Q", b"md", b"b" * 9000, None)])
    real_replace = os.replace
    errors: list[BaseException] = []
    raced: list[threading.Thread] = []

    def release() -> None:
        try:
            log.release(3)
        except BaseException as e:  # noqa: BLE001 - the test reports it
            errors.append(e)

    def replace_after_the_applier(src: str, dst: str) -> None:
        if not raced:                                       # the writer's rename, the first time
            raced.append(threading.Thread(target=release))
            raced[0].start()
            raced[0].join(0.5)                              # serialised: it waits for the writer
        real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace_after_the_applier)
    log.append([PutMsg(4, "Q", b"md", b"b" * 9000, None)])  # begins a fourth extent
    raced[0].join(10)
    monkeypatch.setattr(os, "replace", real_replace)
    assert errors == []
    listed = log.listed()
    log.close()
    assert listed == [4]
    assert RecoveryLog(str(tmp_path / "log")).damage() is None


def test_the_applier_goes_on_when_a_release_fails() -> None:
    """A release that fails (an OSError) is said and retried by a later one; the applier's thread
    goes on applying, and a writer over the limit is not left waiting."""
    from mqlite.store.log import Applier
    applied: list[int] = []
    said: list[str] = []
    calls = iter([OSError("disk"), None, None, None])

    def release(_top: int) -> None:
        err = next(calls, None)
        if err is not None:
            raise err
    ap = Applier(lambda ops, top: applied.append(top), release, said.append)
    ap.hand(1, [PutMsg(1, "Q", b"md", b"x", None)])
    assert ap.settle()
    ap.hand(2, [PutMsg(2, "Q", b"md", b"x", None)])
    assert ap.settle() and applied == [1, 2]
    assert said[0] == "releasing applied log extents failed: disk"
    ap.stop()
