"""PCF: the parameter classes and PCFExecute, which sends commands to the command server."""
from __future__ import annotations

from typing import Any, Protocol

from mqlite.cmq import CMQC, CMQCFC, pcf
from mqlite.cmq.structs import GMO, MD, OD, PMO, MQStruct
from mqlite.pymqi.errors import MQMIError, PYIFError
from mqlite.pymqi.qmgr import QueueManager, ensure_bytes
from mqlite.pymqi.queue import Queue


class CFH(MQStruct):
    """MQCFH: the header of a PCF message."""

    _fields = [("Type", CMQCFC.MQCFT_COMMAND, "i"), ("StrucLength", CMQCFC.MQCFH_STRUC_LENGTH, "i"),
               ("Version", CMQCFC.MQCFH_VERSION_1, "i"), ("Command", CMQCFC.MQCMD_NONE, "i"),
               ("MsgSeqNumber", 1, "i"), ("Control", CMQCFC.MQCFC_LAST, "i"), ("CompCode", CMQC.MQCC_OK, "i"),
               ("Reason", CMQC.MQRC_NONE, "i"), ("ParameterCount", 0, "i")]


class Filter:
    """A filter for an inquire: ``Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(10)``."""

    def __init__(self, selector: int) -> None:
        self.selector = selector
        self.operator = 0
        self.value: Any = None

    def _set(self, operator: int, value: Any) -> "Filter":
        self.operator, self.value = operator, value
        return self

    def less(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_LESS, v)
    def equal(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_EQUAL, v)
    def greater(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_GREATER, v)
    def not_less(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_LESS, v)
    def not_equal(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_EQUAL, v)
    def not_greater(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_GREATER, v)
    def like(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_LIKE, v)
    def not_like(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_LIKE, v)
    def contains(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_CONTAINS, v)
    def excludes(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_EXCLUDES, v)
    def contains_gen(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_CONTAINS_GEN, v)
    def excludes_gen(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_EXCLUDES_GEN, v)

    def pack(self) -> bytes:
        """MQCFIF for an integer attribute, MQCFBF for a byte-string one (MQBA*), else MQCFSF."""
        if isinstance(self.value, int):
            return pcf.enc_int_filter(self.selector, self.operator, self.value)
        if CMQC.MQBA_FIRST <= self.selector <= CMQC.MQBA_LAST:
            return pcf.enc_bytes_filter(self.selector, self.operator, bytes(self.value))
        return pcf.enc_str_filter(self.selector, self.operator, ensure_bytes(self.value))


class _CFParam:
    """A prebuilt PCF parameter, as pymqi's CF* classes: ``CFST(Parameter=..., String=b'...')``."""

    _defaults: dict[str, Any] = {}

    def __init__(self, **kw: Any) -> None:
        for k, v in {**self._defaults, **kw}.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self._defaults)})"


class CFIN(_CFParam):
    _defaults = {"Parameter": 0, "Value": 0}

    def pack(self) -> bytes:
        return pcf.enc_int(self.Parameter, self.Value)


class CFIN64(_CFParam):
    _defaults = {"Parameter": 0, "Value": 0}

    def pack(self) -> bytes:
        return pcf.enc_int64(self.Parameter, self.Value)


class CFIL(_CFParam):
    _defaults = {"Parameter": 0, "Values": []}

    def pack(self) -> bytes:
        return pcf.enc_int_list(self.Parameter, list(self.Values))


class CFIL64(_CFParam):
    _defaults = {"Parameter": 0, "Values": []}

    def pack(self) -> bytes:
        return pcf.enc_int64_list(self.Parameter, list(self.Values))


class CFST(_CFParam):
    _defaults = {"Parameter": 0, "String": b"", "CodedCharSetId": 0}

    def pack(self) -> bytes:
        return pcf.enc_str(self.Parameter, ensure_bytes(self.String, "utf8"), self.CodedCharSetId, nul=True)


class CFSL(_CFParam):
    _defaults = {"Parameter": 0, "Strings": [], "CodedCharSetId": 0}

    def pack(self) -> bytes:
        return pcf.enc_str_list(self.Parameter, [ensure_bytes(v, "utf8") for v in self.Strings], self.CodedCharSetId)


class CFBS(_CFParam):
    _defaults = {"Parameter": 0, "String": b""}

    def pack(self) -> bytes:
        return pcf.enc_bytes(self.Parameter, bytes(self.String))


class CFIF(_CFParam):
    _defaults = {"Parameter": 0, "Operator": CMQCFC.MQCFOP_EQUAL, "FilterValue": 0}

    def pack(self) -> bytes:
        return pcf.enc_int_filter(self.Parameter, self.Operator, self.FilterValue)


class CFSF(_CFParam):
    _defaults = {"Parameter": 0, "Operator": CMQCFC.MQCFOP_EQUAL, "FilterValue": b"", "CodedCharSetId": 0}

    def pack(self) -> bytes:
        return pcf.enc_str_filter(self.Parameter, self.Operator, ensure_bytes(self.FilterValue, "utf8"),
                                  self.CodedCharSetId, nul=True)


class CFGR(_CFParam):
    """MQCFGR: a group header; the ``ParameterCount`` parameters that follow it belong to it."""
    _defaults = {"Parameter": 0, "ParameterCount": 0}

    def pack(self) -> bytes:
        return pcf.I4.pack(CMQCFC.MQCFT_GROUP, CMQCFC.MQCFGR_STRUC_LENGTH, self.Parameter, self.ParameterCount)


class CFBF(_CFParam):
    _defaults = {"Parameter": 0, "Operator": CMQCFC.MQCFOP_EQUAL, "FilterValue": b""}

    def pack(self) -> bytes:
        return pcf.enc_bytes_filter(self.Parameter, self.Operator, bytes(self.FilterValue))


class ByteString(bytes):
    """Marks a bytes value that goes into a PCF command as MQCFBS (not as a string)."""


_ATTRS_SELECTORS = {v for k, v in vars(CMQCFC).items() if k.startswith("MQIACF_") and k.endswith("_ATTRS")}


def _pcf_param(selector: int, value: Any) -> bytes:
    if isinstance(value, ByteString):
        return pcf.enc_bytes(selector, bytes(value))
    if isinstance(value, (bytes, str)):
        return pcf.enc_str(selector, ensure_bytes(value, "utf8"))
    if isinstance(value, int):
        return pcf.enc_int_list(selector, [value]) if selector in _ATTRS_SELECTORS else pcf.enc_int(selector, value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, int) for v in value):
            return pcf.enc_int_list(selector, list(value))
        return pcf.enc_str_list(selector, [ensure_bytes(v, "utf8") for v in value])
    raise TypeError(f"PCF parameter {selector}: cannot encode {type(value).__name__}")


class CommandQueue(Protocol):
    """What PCFExecute puts a command through (``command_queue=``): an open Queue, or anything that
    puts the same way (mqweb's, which sets the caller's identity context)."""

    def put(self, msg: Any, md: Any, pmo: Any, /) -> Any: ...


class PCFExecute(QueueManager):
    """Sends PCF commands to the command server and returns its answers as pymqi does:
    ``pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b'APP.*'})`` is a list of dicts keyed by selector.

    The constructor takes pymqi's arguments and ibmmq's (``reply_queue_name`` for a queue of your
    own instead of a dynamic one from ``model_queue_name``, ``reply_queue_open_options``,
    ``command_queue``, ``command_timeout``, ``max_length``)."""

    _padded = True      # pymqi 1.12 returns strings with the padding of their StrucLength; ibmmq does not

    def __init__(self, name: Any = None, disconnect_on_exit: bool = True,
                 model_queue_name: Any = b"SYSTEM.DEFAULT.MODEL.QUEUE", dynamic_queue_name: Any = b"PYMQPCF.*",
                 command_queue_name: Any = b"SYSTEM.ADMIN.COMMAND.QUEUE", response_wait_interval: int = 5000,
                 convert: bool = False, command_queue_qmgr: Any = b"", reply_queue_name: Any = None,
                 reply_queue_open_options: int = CMQC.MQOO_INPUT_EXCLUSIVE,
                 command_queue: CommandQueue | None = None,
                 command_timeout: int = 0, max_length: int | None = None) -> None:
        if isinstance(name, QueueManager):
            # pymqi's form PCFExecute(qmgr): share that connection; it stays the caller's to end
            self.__dict__.update(name.__dict__)
            self.disconnect_on_exit = False
            self.qm: QueueManager = name
        else:
            super().__init__(name, disconnect_on_exit)
            self.qm = self
        self._command_od = OD(ObjectName=ensure_bytes(command_queue_name),
                              ObjectQMgrName=ensure_bytes(command_queue_qmgr))
        self._command_queue = command_queue
        # MQ waits no longer than an hour here, as ibmmq does for a negative interval
        self.response_wait_interval = response_wait_interval if response_wait_interval >= 0 else 3600 * 1000
        self.command_timeout = command_timeout
        self.max_length = max_length
        self.convert = convert
        if reply_queue_open_options & (CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INPUT_SHARED
                                       | CMQC.MQOO_INPUT_AS_Q_DEF) == 0:
            reply_queue_open_options |= CMQC.MQOO_INPUT_EXCLUSIVE
        od = OD(ObjectName=ensure_bytes(reply_queue_name or model_queue_name),
                DynamicQName=ensure_bytes(dynamic_queue_name))
        self._reply_queue: Queue | None = Queue(self, od, reply_queue_open_options)
        self._reply_queue_name: bytes | None = od.ObjectName.split(b"\0", 1)[0].strip()

    @property
    def reply_queue(self) -> Queue | None:
        return self._reply_queue

    @property
    def reply_queue_name(self) -> bytes | None:
        """The reply queue's name (a dynamic queue's is the one MQOPEN made); None after disconnect."""
        return self._reply_queue_name

    @property
    def command_queue_name(self) -> bytes:
        return self._command_od.ObjectName

    def __getattr__(self, name: str) -> Any:
        if name.startswith("MQCMD_") and hasattr(CMQCFC, name):
            command = getattr(CMQCFC, name)
            return lambda args=None, filters=None, responses=None: self.run(command, args, filters, responses)
        raise AttributeError(name)

    def run(self, command: int, args: Any = None, filters: list[Any] | None = None,
            responses: list[tuple[dict[int, Any], CFH]] | None = None) -> list[dict[int, Any]]:
        """Send one command; return the replies' parameters. With ``responses`` (ibmmq's extension) every
        reply is also appended there as ``(parameters, CFH)``, failed ones included, before any raise."""
        if self._reply_queue is None:
            raise PYIFError("the PCFExecute object is disconnected")
        params: list[bytes] = []
        if isinstance(args, dict):
            params = [_pcf_param(k, v) for k, v in args.items()]
        elif isinstance(args, (list, tuple)):
            params = [a if isinstance(a, bytes) else a.pack() for a in args]
        params += [f.pack() for f in filters or []]
        header = pcf.Header(type=CMQCFC.MQCFT_COMMAND_XR, version=CMQCFC.MQCFH_VERSION_3, command=command)
        expiry = self.command_timeout // 100 if self.command_timeout else max(self.response_wait_interval // 100, 1) * 3
        put_md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=self._reply_queue_name,
                    Report=CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG, Expiry=expiry)
        body = pcf.encode(header, params)
        if self._command_queue is not None:
            self._command_queue.put(body, put_md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        else:
            self.qm.put1(OD(ObjectName=self._command_od.ObjectName, ObjectQMgrName=self._command_od.ObjectQMgrName),
                         body, put_md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        out: list[dict[int, Any]] = []
        failure = None
        options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | (CMQC.MQGMO_CONVERT if self.convert else 0)
        while True:
            md = MD(CorrelId=put_md.MsgId)
            gmo = GMO(Options=options, Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID,
                      WaitInterval=self.response_wait_interval)
            values, cfh = self._unpack(self._reply_queue.get(self.max_length, md, gmo), self._padded)
            if responses is not None:
                responses.append((values, cfh))
            if cfh.CompCode and failure is None:
                failure = MQMIError(cfh.CompCode, cfh.Reason, response=values)
            elif values:
                out.append(values)
            if cfh.Control == CMQCFC.MQCFC_LAST:
                break
        if failure is not None:
            raise failure
        return out

    @classmethod
    def unpack(cls, message: bytes) -> tuple[dict[int, Any], CFH]:
        """Any PCF message (replies, statistics, events, MQCFT_USER ...): a dict of its parameters by
        selector and its CFH. A group (MQCFGR) is a list with a dict for each group of that selector,
        a filter is (operator, value). A reply whose CompCode is not MQCC_OK raises MQMIError."""
        values, cfh = cls._unpack(message, cls._padded)
        if cfh.CompCode != CMQC.MQCC_OK:
            raise MQMIError(cfh.CompCode, cfh.Reason, response=values)
        return values, cfh

    @staticmethod
    def _unpack(message: bytes, padded: bool) -> tuple[dict[int, Any], CFH]:
        try:
            msg = pcf.decode(message, any_type=True, padded=padded)
        except pcf.PCFError as e:
            raise PYIFError(f"not a PCF message: {e.detail}") from None
        h = msg.header
        cfh = CFH(Type=h.type, StrucLength=h.struc_length, Version=h.version, Command=h.command,
                  MsgSeqNumber=h.msg_seq_number, Control=h.control, CompCode=h.comp_code, Reason=h.reason,
                  ParameterCount=h.parameter_count)
        return _as_dict(msg.params), cfh

    @staticmethod
    def stringify_keys(raw: dict[int, Any]) -> dict[Any, Any]:
        """The dict with selectors named (MQCA_*/MQCACF_*/MQCACH_* for bytes values, MQIA_*/MQIACF_*/
        MQIACH_* for the others; MQCA_ and MQIA_ first, as pymqi and ibmmq look them up); a
        selector without a name stays as it is."""
        return {_NAMES[_is_text(v)].get(k, k): v for k, v in raw.items()}

    stringifyKeys = stringify_keys

    def disconnect(self) -> None:
        """As pymqi's: closes the reply queue only. A connection this object made itself ends with
        ``QueueManager.disconnect(pcf)`` or when it is collected (disconnect_on_exit)."""
        try:
            if self._reply_queue is not None:
                self._reply_queue.close()
        except (MQMIError, PYIFError):
            pass
        finally:
            self._reply_queue = None
            self._reply_queue_name = None


def _as_dict(params: list[tuple[int, int, Any]]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for ptype, sel, value in params:
        if ptype == CMQCFC.MQCFT_GROUP:
            out.setdefault(sel, []).append(_as_dict(value))
        elif isinstance(value, pcf.Filter):
            out[sel] = (value.operator, value.value)
        else:
            out[sel] = value
    return out


def _selector_names(kind: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for mod, prefixes in ((CMQCFC, (f"MQ{kind}CF_", f"MQ{kind}CH_")), (CMQC, (f"MQ{kind}_",))):
        out.update({v: k for k, v in vars(mod).items() if k.startswith(prefixes) and isinstance(v, int)})
    return out


_NAMES = {False: _selector_names("IA"), True: _selector_names("CA")}


def _is_text(value: Any) -> bool:
    first = value[0] if isinstance(value, list) and value else value
    return isinstance(first, bytes)
