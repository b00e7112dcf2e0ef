"""pymqi's Topic and Subscription: publishing to a topic (MQOPEN of the topic, MQPUT) and
subscribing (MQSUB, then gets from the subscription's queue), with pymqi's signatures and
deferred-open rules; also ``subrq`` (MQSUBRQ), as ibmmq 2.x has it."""
from __future__ import annotations

from typing import Any, Self

from mqlite.cmq import CMQC
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.cmq.subs import SD, SRO
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.pymqi.errors import PYIFError, check_reply
from mqlite.pymqi.qmgr import QueueManager, ensure_bytes
from mqlite.pymqi.queue import Queue
from mqlite.pymqi.rfh2 import RFH2


class Topic:
    """Topic(queue_manager, topic_name=None, topic_string=None, topic_desc=None, open_opts=None):
    opened now when open_opts (or a topic_desc with open_opts) is given, else by open() or the
    first pub()."""

    def __init__(self, queue_manager: QueueManager, topic_name: Any = None, topic_string: Any = None,
                 topic_desc: OD | None = None, open_opts: int | None = None) -> None:
        self.__qmgr = queue_manager
        self.topic_name = ensure_bytes(topic_name) if topic_name else None
        self.topic_string = ensure_bytes(topic_string) if topic_string else None
        if topic_desc is not None and topic_desc.ObjectType != CMQC.MQOT_TOPIC:
            raise PYIFError("The Topic Descriptor ObjectType is not MQOT_TOPIC.")
        self.__desc = topic_desc or self.__make_desc(self.topic_name, self.topic_string)
        self.__queue: Queue | None = None
        if open_opts:
            self.__open(open_opts)

    @staticmethod
    def __make_desc(name: bytes | None, string: bytes | None) -> OD:
        od = OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
        if name:
            od.ObjectName = name
        if string:
            od.set_vs("ObjectString", string)
        return od

    def __open(self, opts: int) -> None:
        self.__queue = Queue(self.__qmgr).open(self.__desc, opts)

    def open(self, topic_name: Any = None, topic_string: Any = None, topic_desc: OD | None = None,
             open_opts: int | None = None) -> Topic:
        if self.__queue is not None:
            raise PYIFError("The Topic is already open.")
        if topic_name:
            self.topic_name = ensure_bytes(topic_name)
        if topic_string:
            self.topic_string = ensure_bytes(topic_string)
        self.__desc = topic_desc or self.__make_desc(self.topic_name, self.topic_string)
        if open_opts:
            self.__open(open_opts)
        return self

    def pub(self, msg: Any, *opts: Any) -> None:
        """pub(msg[, md, pmo]): publish; the topic opens for output first if it is not open."""
        if self.__queue is None:
            self.__open(CMQC.MQOO_OUTPUT)
        assert self.__queue is not None
        self.__queue.put(msg, *opts[:2])

    @property
    def _bytes_encoding(self) -> str:
        """How a str message is encoded (the queue manager's bytes_encoding)."""
        return self.__qmgr.bytes_encoding

    def pub_rfh2(self, msg: Any, *opts: Any) -> None:
        """pub_rfh2(msg[, md, pmo, rfh2_list]): publish behind MQRFH2 headers."""
        if self.__queue is None:
            self.__open(CMQC.MQOO_OUTPUT)
        assert self.__queue is not None
        md_ = opts[0] if len(opts) > 0 else None
        pmo_ = opts[1] if len(opts) > 1 else None
        rfh2: list[RFH2] | None = opts[2] if len(opts) > 2 else None
        self.__queue.put_rfh2(msg, md_, pmo_, rfh2)

    def sub(self, *opts: Any) -> Subscription:
        """sub([sd, sub_queue]): a Subscription to this topic."""
        sub = Subscription(self.__qmgr)
        sub.sub(sub_desc=opts[0] if opts else None, sub_queue=opts[1] if len(opts) > 1 else None,
                topic_name=self.topic_name, topic_string=self.topic_string)
        return sub

    def close(self, options: int = CMQC.MQCO_NONE) -> None:
        if self.__queue is None:
            raise PYIFError("Topic not open.")
        self.__queue.close(options)
        self.__queue = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.__queue is not None:
            self.close()


class Subscription:
    """Subscription(queue_manager, sub_desc=None, sub_name=None, sub_queue=None, sub_opts=None,
    topic_name=None, topic_string=None): MQSUB now when a sub_desc is given, else by sub()."""

    def __init__(self, queue_manager: QueueManager, sub_desc: SD | None = None, sub_name: Any = None,
                 sub_queue: Any = None, sub_opts: int | None = None, topic_name: Any = None,
                 topic_string: Any = None) -> None:
        self.__qmgr = queue_manager
        self.sub_queue: Any = sub_queue
        self.sub_name = ensure_bytes(sub_name) if sub_name else None
        self.sub_opts = sub_opts
        self.topic_name = ensure_bytes(topic_name) if topic_name else None
        self.topic_string = ensure_bytes(topic_string) if topic_string else None
        self.sub_desc: SD | None = None
        self.__handle: int | None = None
        if sub_desc is not None:
            self.sub(sub_desc=sub_desc)

    def get_sub_queue(self) -> Any:
        return self.sub_queue

    def get_sub_handle(self) -> int | None:
        return self.__handle

    def sub(self, sub_desc: SD | None = None, sub_queue: Any = None, sub_name: Any = None,
            sub_opts: int | None = None, topic_name: Any = None, topic_string: Any = None) -> Subscription:
        """MQSUB: create, resume or alter. Without an SD one is made (MQSO_CREATE, non-durable,
        managed unless a queue is given). ``sub_queue``: a Queue (or its handle) publications go to."""
        if topic_name:
            self.topic_name = ensure_bytes(topic_name)
        if topic_string:
            self.topic_string = ensure_bytes(topic_string)
        if sub_name:
            self.sub_name = ensure_bytes(sub_name)
        if sub_desc is not None and not isinstance(sub_desc, SD):
            raise TypeError("sub_desc must be a SD(sub descriptor) object.")
        if sub_desc is None:
            sub_desc = SD(Options=sub_opts or self.sub_opts or (
                CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | (0 if sub_queue else CMQC.MQSO_MANAGED)))
            if self.sub_name:
                sub_desc.set_vs("SubName", self.sub_name)
            if self.topic_name:
                sub_desc.ObjectName = self.topic_name
            if self.topic_string:
                sub_desc.set_vs("ObjectString", self.topic_string)
        sub_queue = sub_queue if sub_queue is not None else self.sub_queue
        hobj = 0
        if isinstance(sub_queue, Queue):
            hobj = sub_queue.get_handle()
        elif isinstance(sub_queue, int):
            hobj = sub_queue
        reply = self.__qmgr._call(P.SUB, V.Sub.request(hobj, sub_desc))
        check_reply(reply)
        self.__handle, qh, flags = V.Sub.parse_reply(reply, sub_desc)
        self.sub_desc = sub_desc
        if isinstance(sub_queue, Queue):
            self.sub_queue = sub_queue
        else:
            self.sub_queue = Queue(self.__qmgr)
            self.sub_queue._adopt(qh, flags)
        self.__qmgr._subs.add(self)
        return self

    def _resume(self, handles: dict[int, int]) -> None:
        """After a reconnect (reconnect.py): MQSUB again, resuming a durable subscription and making
        a non-durable one again (publications made in between are not kept for it, as in MQ), its
        managed queue adopted anew; the new handles noted in ``handles``."""
        sd = self.sub_desc
        transport = self.__qmgr._transport
        if self.__handle is None or sd is None or transport is None:
            return
        again = sd.copy()
        if sd.Options & CMQC.MQSO_DURABLE:
            again.Options = sd.Options & ~(CMQC.MQSO_CREATE | CMQC.MQSO_ALTER) | CMQC.MQSO_RESUME
        managed = bool(sd.Options & CMQC.MQSO_MANAGED)
        hobj = 0 if managed or self.sub_queue is None else self.sub_queue.get_handle() or 0
        reply = transport.call(P.SUB, V.Sub.request(hobj, again))
        if V.II.unpack_from(reply)[0] == CMQC.MQCC_FAILED:
            return
        hsub, qh, flags = V.Sub.parse_reply(reply, again)
        handles[self.__handle] = hsub
        self.__handle = hsub
        if managed and self.sub_queue is not None:
            old = self.sub_queue.get_handle()
            self.sub_queue._adopt(qh, flags)
            if old is not None:
                handles[old] = qh

    def get(self, max_length: int | None = None, *opts: Any) -> bytes:
        """A publication from the subscription's queue (MQGET: md, gmo as for Queue.get)."""
        return self.sub_queue.get(max_length, *opts)  # type: ignore[no-any-return]

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        return self.sub_queue.get_rfh2(max_length, *opts)  # type: ignore[no-any-return]

    def subrq(self, action: int = CMQC.MQSR_ACTION_PUBLICATION, sro: SRO | None = None) -> SRO:
        """MQSUBRQ: send the retained publications now (PUBLICATIONS_ON_REQUEST); 2437 if none."""
        if self.__handle is None:
            raise PYIFError("Subscription not open.")
        reply = self.__qmgr._call(P.SUBRQ, V.SubRq.request(self.__handle, action))
        check_reply(reply)
        sro = sro if sro is not None else SRO()
        sro.NumPubs = V.SubRq.parse_reply(reply)
        return sro

    def close(self, sub_close_options: int = CMQC.MQCO_NONE, close_sub_queue: bool = False,
              close_sub_queue_options: int = CMQC.MQCO_NONE) -> None:
        if self.__handle is None:
            raise PYIFError("Subscription not open.")
        check_reply(self.__qmgr._call(P.CLOSE, V.Close.request(self.__handle, sub_close_options, 0)))
        self.__handle = None
        self.__qmgr._subs.discard(self)
        if close_sub_queue and self.sub_queue is not None:
            self.sub_queue.close(close_sub_queue_options)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.__handle is not None:
            self.close()

    def __del__(self) -> None:
        """A Subscription collected while open closes its handle (a durable subscription stays),
        as a Queue does: a dropped non-durable subscription does not hold its topic (2429)."""
        try:
            hsub, qmgr = self.__handle, self.__qmgr
        except AttributeError:          # __init__ did not finish
            return
        if hsub is not None and qmgr._transport is not None:
            self.__handle = None
            try:
                qmgr._orphan(hsub, 0)
            except Exception:           # at interpreter exit, say: nothing more can be done
                pass


__all__ = ["GMO", "MD", "PMO", "SD", "SRO", "Subscription", "Topic"]
