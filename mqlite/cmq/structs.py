"""MQ structures with MQ's binary layouts (64-bit Linux, native byte order and alignment).

Each structure is declared once as an ordered field table ``(name, default, struct format)``.
The table gives attribute access with defaults, ``pack()``/``unpack()`` in the C layout, and the
pymqi conveniences (item access, ``set``, ``get``).  The engine, the wire protocol and the
pymqi-compatible API all use these same classes, so a field means the same thing everywhere.
"""
from __future__ import annotations

import struct
from typing import Any, ClassVar, Self

from mqlite.cmq import CMQC
from mqlite.cmq.mqstruct import Field, MQStruct

__all__ = ["MQStruct", "Field", "MD", "MD1", "OD", "PMO", "GMO", "CD", "SCO", "CNO", "CSP", "MDE", "BNO", "STS",
           "pad", "text"]

_VS = [("VSPtr", 0, "P"), ("VSOffset", 0, "i"), ("VSBufSize", 0, "i"), ("VSLength", 0, "i"),
       ("VSCCSID", 0, "i")]


def _charv(prefix: str) -> list[Field]:
    return [(prefix + name, default, code) for name, default, code in _VS]


class MD(MQStruct):
    """MQMD version 2 (364 bytes)."""

    _fields = [
        ("StrucId", CMQC.MQMD_STRUC_ID, "4s"),
        ("Version", CMQC.MQMD_VERSION_1, "i"),
        ("Report", CMQC.MQRO_NONE, "i"),
        ("MsgType", CMQC.MQMT_DATAGRAM, "i"),
        ("Expiry", CMQC.MQEI_UNLIMITED, "i"),
        ("Feedback", CMQC.MQFB_NONE, "i"),
        ("Encoding", CMQC.MQENC_NATIVE, "i"),
        ("CodedCharSetId", CMQC.MQCCSI_Q_MGR, "i"),
        ("Format", b"", "8s"),
        ("Priority", CMQC.MQPRI_PRIORITY_AS_Q_DEF, "i"),
        ("Persistence", CMQC.MQPER_PERSISTENCE_AS_Q_DEF, "i"),
        ("MsgId", b"", "24s"),
        ("CorrelId", b"", "24s"),
        ("BackoutCount", 0, "i"),
        ("ReplyToQ", b"", "48s"),
        ("ReplyToQMgr", b"", "48s"),
        ("UserIdentifier", b"", "12s"),
        ("AccountingToken", b"", "32s"),
        ("ApplIdentityData", b"", "32s"),
        ("PutApplType", CMQC.MQAT_NO_CONTEXT, "i"),
        ("PutApplName", b"", "28s"),
        ("PutDate", b"", "8s"),
        ("PutTime", b"", "8s"),
        ("ApplOriginData", b"", "4s"),
        ("GroupId", b"", "24s"),
        ("MsgSeqNumber", 1, "i"),
        ("Offset", 0, "i"),
        ("MsgFlags", CMQC.MQMF_NONE, "i"),
        ("OriginalLength", CMQC.MQOL_UNDEFINED, "i"),
    ]

    # An MQMD may hold its fields packed (``_raw`` in ``__dict__``), decoded when one is first read:
    # what an MQPUT answers (``hold``: most applications never look at it, and decoding 29 fields
    # was a tenth of a client's put) and what the server stores (``PackedMD``). A field in
    # ``__dict__`` (set since) wins over the packed one; ``pack`` writes those into a copy of the bytes.
    _at: ClassVar[dict[str, tuple[struct.Struct, int]]]    # each field's struct and offset

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._at = cls._offsets()

    @classmethod
    def _offsets(cls) -> dict[str, tuple[struct.Struct, int]]:
        return {n: (struct.Struct("@" + c), cls.field_slice(n).start) for n, _d, c in cls._fields}

    @classmethod
    def held(cls, raw: bytes) -> Self:
        """An MQMD whose fields are those packed in ``raw`` (``MD_LEN`` bytes), decoded when first read."""
        obj = cls.__new__(cls)
        obj.__dict__["_raw"] = raw
        return obj

    def hold(self, raw: bytes) -> None:
        """The fields become those packed in ``raw``, decoded when one is first read; attributes that
        are no MQMD field stay."""
        d = self.__dict__
        if "_raw" not in d and len(d) == len(self._names):      # the fields and nothing else
            d.clear()
        else:
            extras = {k: v for k, v in d.items() if k not in self._at and k != "_raw"}
            d.clear()
            d.update(extras)
        d["_raw"] = raw

    def decoded(self) -> dict[str, Any]:
        d = self.__dict__
        raw = d.pop("_raw", None)
        if raw is not None:
            fields = dict(zip(self._names, self._struct.unpack(raw), strict=False))
            fields.update(d)                 # a field set since it was held wins
            d.update(fields)
        return d

    def __getattr__(self, name: str) -> Any:          # only for names not in __dict__
        if name not in self._at or "_raw" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self.decoded()[name]

    def peek(self, name: str) -> Any:
        """A field's value, read from the packed bytes without decoding the rest if it is held so."""
        d = self.__dict__
        raw = d.get("_raw")
        if raw is None or name in d:
            return d[name]
        code, at = self._at[name]
        return code.unpack_from(raw, at)[0]

    def pack(self) -> bytes:
        d = self.__dict__
        raw = d.get("_raw")
        if raw is None:                      # MQStruct.pack, written out: every put and get packs one
            try:
                return self._struct.pack(*self._getter(d))
            except struct.error as exc:
                raise TypeError(f"{type(self).__name__}: cannot pack: {exc}") from None
        if len(d) == 1:
            return raw
        buf = bytearray(raw)
        at = self._at
        try:
            for name, value in d.items():
                where = at.get(name)
                if where is not None:
                    where[0].pack_into(buf, where[1], value)
        except struct.error as exc:
            raise TypeError(f"{type(self).__name__}: cannot pack: {exc}") from None
        return bytes(buf)

    def unpack(self, buf: bytes, offset: int = 0) -> Self:
        if len(buf) - offset < self._struct.size:
            raise ValueError(f"{type(self).__name__}: buffer of {len(buf) - offset} bytes, need {self._struct.size}")
        d = self.__dict__
        if "_raw" in d:
            del d["_raw"]
        d.update(zip(self._names, self._struct.unpack_from(buf, offset), strict=False))
        return self


MD._at = MD._offsets()


class MD1(MQStruct):
    """MQMD version 1 (324 bytes): the descriptor embedded in MQXQH."""

    _fields = MD._fields[:24]


class OD(MQStruct):
    """MQOD version 4 (424 bytes on 64-bit)."""

    _fields = [
        ("StrucId", CMQC.MQOD_STRUC_ID, "4s"),
        ("Version", CMQC.MQOD_VERSION_1, "i"),
        ("ObjectType", CMQC.MQOT_Q, "i"),
        ("ObjectName", b"", "48s"),
        ("ObjectQMgrName", b"", "48s"),
        ("DynamicQName", b"AMQ.*", "48s"),
        ("AlternateUserId", b"", "12s"),
        ("RecsPresent", 0, "i"),
        ("KnownDestCount", 0, "i"),
        ("UnknownDestCount", 0, "i"),
        ("InvalidDestCount", 0, "i"),
        ("ObjectRecOffset", 0, "i"),
        ("ResponseRecOffset", 0, "i"),
        ("ObjectRecPtr", 0, "P"),
        ("ResponseRecPtr", 0, "P"),
        ("AlternateSecurityId", b"", "40s"),
        ("ResolvedQName", b"", "48s"),
        ("ResolvedQMgrName", b"", "48s"),
        *_charv("ObjectString"),
        *_charv("SelectionString"),
        *_charv("ResObjectString"),
        ("ResolvedType", -3, "i"),
    ]


class PMO(MQStruct):
    """MQPMO version 3 (184 bytes on 64-bit)."""

    _fields = [
        ("StrucId", CMQC.MQPMO_STRUC_ID, "4s"),
        ("Version", CMQC.MQPMO_VERSION_1, "i"),
        ("Options", CMQC.MQPMO_NONE, "i"),
        ("Timeout", -1, "i"),
        ("Context", 0, "i"),
        ("KnownDestCount", 0, "i"),
        ("UnknownDestCount", 0, "i"),
        ("InvalidDestCount", 0, "i"),
        ("ResolvedQName", b"", "48s"),
        ("ResolvedQMgrName", b"", "48s"),
        ("RecsPresent", 0, "i"),
        ("PutMsgRecFields", 0, "i"),
        ("PutMsgRecOffset", 0, "i"),
        ("ResponseRecOffset", 0, "i"),
        ("PutMsgRecPtr", 0, "P"),
        ("ResponseRecPtr", 0, "P"),
        ("OriginalMsgHandle", 0, "q"),
        ("NewMsgHandle", 0, "q"),
        ("Action", 0, "i"),
        ("PubLevel", 0, "i"),
    ]


class GMO(MQStruct):
    """MQGMO version 4 (112 bytes)."""

    _fields = [
        ("StrucId", CMQC.MQGMO_STRUC_ID, "4s"),
        ("Version", CMQC.MQGMO_VERSION_1, "i"),
        ("Options", CMQC.MQGMO_NO_WAIT, "i"),
        ("WaitInterval", 0, "i"),
        ("Signal1", 0, "i"),
        ("Signal2", 0, "i"),
        ("ResolvedQName", b"", "48s"),
        ("MatchOptions", CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID, "i"),
        ("GroupStatus", CMQC.MQGS_NOT_IN_GROUP, "b"),
        ("SegmentStatus", CMQC.MQSS_NOT_A_SEGMENT, "b"),
        ("Segmentation", CMQC.MQSEG_INHIBITED, "b"),
        ("Reserved1", b" ", "c"),
        ("MsgToken", b"", "16s"),
        ("ReturnedLength", CMQC.MQRL_UNDEFINED, "i"),
        ("Reserved2", 0, "i"),
        ("MsgHandle", 0, "q"),
    ]


class CD(MQStruct):
    """MQCD version 11: the client channel definition."""

    _fields = [
        ("ChannelName", b"", "20s"),
        ("Version", CMQC.MQCD_VERSION_6, "i"),
        ("ChannelType", CMQC.MQCHT_CLNTCONN, "i"),
        ("TransportType", CMQC.MQXPT_TCP, "i"),
        ("Desc", b"", "64s"),
        ("QMgrName", b"", "48s"),
        ("XmitQName", b"", "48s"),
        ("ShortConnectionName", b"", "20s"),
        ("MCAName", b"", "20s"),
        ("ModeName", b"", "8s"),
        ("TpName", b"", "64s"),
        ("BatchSize", 50, "i"),
        ("DiscInterval", 6000, "i"),
        ("ShortRetryCount", 10, "i"),
        ("ShortRetryInterval", 60, "i"),
        ("LongRetryCount", 999999999, "i"),
        ("LongRetryInterval", 1200, "i"),
        ("SecurityExit", b"", "128s"),
        ("MsgExit", b"", "128s"),
        ("SendExit", b"", "128s"),
        ("ReceiveExit", b"", "128s"),
        ("SeqNumberWrap", 999999999, "i"),
        ("MaxMsgLength", 4194304, "i"),
        ("PutAuthority", 1, "i"),
        ("DataConversion", 0, "i"),
        ("SecurityUserData", b"", "32s"),
        ("MsgUserData", b"", "32s"),
        ("SendUserData", b"", "32s"),
        ("ReceiveUserData", b"", "32s"),
        ("UserIdentifier", b"", "12s"),
        ("Password", b"", "12s"),
        ("MCAUserIdentifier", b"", "12s"),
        ("MCAType", 1, "i"),
        ("ConnectionName", b"", "264s"),
        ("RemoteUserIdentifier", b"", "12s"),
        ("RemotePassword", b"", "12s"),
        ("MsgRetryExit", b"", "128s"),
        ("MsgRetryUserData", b"", "32s"),
        ("MsgRetryCount", 10, "i"),
        ("MsgRetryInterval", 1000, "i"),
        ("HeartbeatInterval", 300, "i"),
        ("BatchInterval", 0, "i"),
        ("NonPersistentMsgSpeed", CMQC.MQNPMS_FAST, "i"),
        ("StrucLength", 0, "i"),
        ("ExitNameLength", 128, "i"),
        ("ExitDataLength", 32, "i"),
        ("MsgExitsDefined", 0, "i"),
        ("SendExitsDefined", 0, "i"),
        ("ReceiveExitsDefined", 0, "i"),
        ("MsgExitPtr", 0, "P"),
        ("MsgUserDataPtr", 0, "P"),
        ("SendExitPtr", 0, "P"),
        ("SendUserDataPtr", 0, "P"),
        ("ReceiveExitPtr", 0, "P"),
        ("ReceiveUserDataPtr", 0, "P"),
        ("ClusterPtr", 0, "P"),
        ("ClustersDefined", 0, "i"),
        ("NetworkPriority", 0, "i"),
        ("LongMCAUserIdLength", 0, "i"),
        ("LongRemoteUserIdLength", 0, "i"),
        ("LongMCAUserIdPtr", 0, "P"),
        ("LongRemoteUserIdPtr", 0, "P"),
        ("MCASecurityId", b"", "40s"),
        ("RemoteSecurityId", b"", "40s"),
        ("SSLCipherSpec", b"", "32s"),
        ("SSLPeerNamePtr", 0, "P"),
        ("SSLPeerNameLength", 0, "i"),
        ("SSLClientAuth", 0, "i"),
        ("KeepAliveInterval", -1, "i"),
        ("LocalAddress", b"", "48s"),
        ("BatchHeartbeat", 0, "i"),
        ("HdrCompList", [0, -1], "2i"),
        ("MsgCompList", [0] + 15 * [-1], "16i"),
        ("CLWLChannelRank", 0, "i"),
        ("CLWLChannelPriority", 0, "i"),
        ("CLWLChannelWeight", 50, "i"),
        ("ChannelMonitoring", 0, "i"),
        ("ChannelStatistics", 0, "i"),
        ("SharingConversations", 10, "i"),
        ("PropertyControl", 0, "i"),
        ("MaxInstances", 999999999, "i"),
        ("MaxInstancesPerClient", 999999999, "i"),
        ("ClientChannelWeight", 0, "i"),
        ("ConnectionAffinity", 1, "i"),
        ("BatchDataLimit", 5000, "i"),
        ("UseDLQ", 2, "i"),
        ("DefReconnect", 0, "i"),
        ("CertificateLabel", b"", "64s"),
    ]


class SCO(MQStruct):
    """MQSCO: TLS configuration options (accepted and stored; mqlite's channels use plain TCP)."""

    _fields = [
        ("StrucId", b"SCO ", "4s"),
        ("Version", 5, "i"),
        ("KeyRepository", b"", "256s"),
        ("CryptoHardware", b"", "256s"),
        ("AuthInfoRecCount", 0, "i"),
        ("AuthInfoRecOffset", 0, "i"),
        ("AuthInfoRecPtr", 0, "P"),
        ("KeyResetCount", 0, "i"),
        ("FipsRequired", 0, "i"),
        ("EncryptionPolicySuiteB", [1, 0, 0, 0], "4i"),
        ("CertificateValPolicy", 0, "i"),
        ("CertificateLabel", b"", "64s"),
    ]


class CNO(MQStruct):
    """MQCNO (the fields applications set)."""

    _fields = [
        ("StrucId", CMQC.MQCNO_STRUC_ID, "4s"),
        ("Version", CMQC.MQCNO_VERSION_1, "i"),
        ("Options", CMQC.MQCNO_NONE, "i"),
        ("ClientConnOffset", 0, "i"),
        ("ClientConnPtr", 0, "P"),
        ("ConnTag", b"", "128s"),
        ("SSLConfigPtr", 0, "P"),
        ("SSLConfigOffset", 0, "i"),
        ("ConnectionId", b"", "24s"),
        ("SecurityParmsOffset", 0, "i"),
        ("SecurityParmsPtr", 0, "P"),
        ("CCDTUrlPtr", 0, "P"),
        ("CCDTUrlOffset", 0, "i"),
        ("CCDTUrlLength", 0, "i"),
        ("Reserved", b"", "8s"),
        ("ApplName", b"", "28s"),
    ]


class CSP(MQStruct):
    """MQCSP: user id and password for connection authentication."""

    _fields = [
        ("StrucId", CMQC.MQCSP_STRUC_ID, "4s"),
        ("Version", CMQC.MQCSP_VERSION_1, "i"),
        ("AuthenticationType", CMQC.MQCSP_AUTH_NONE, "i"),
        ("Reserved1", b"", "4s"),
        ("CSPUserIdPtr", 0, "P"),
        ("CSPUserIdOffset", 0, "i"),
        ("CSPUserIdLength", 0, "i"),
        ("Reserved2", b"", "8s"),
        ("CSPPasswordPtr", 0, "P"),
        ("CSPPasswordOffset", 0, "i"),
        ("CSPPasswordLength", 0, "i"),
    ]

    def __init__(self, **kw: Any) -> None:
        self.__dict__["CSPUserId"] = None
        self.__dict__["CSPPassword"] = None
        super().__init__(**kw)


class MDE(MQStruct):
    """MQMDE version 2 (72 bytes): the message-descriptor extension that carries MQMD version 2's
    fields in front of the data of a version-1 MQMD."""

    _fields = [
        ("StrucId", CMQC.MQMDE_STRUC_ID, "4s"),
        ("Version", CMQC.MQMDE_VERSION_2, "i"),
        ("StrucLength", CMQC.MQMDE_LENGTH_2, "i"),
        ("Encoding", CMQC.MQENC_NATIVE, "i"),
        ("CodedCharSetId", CMQC.MQCCSI_UNDEFINED, "i"),
        ("Format", b"", "8s"),
        ("Flags", CMQC.MQMDEF_NONE, "i"),
        ("GroupId", b"", "24s"),
        ("MsgSeqNumber", 1, "i"),
        ("Offset", 0, "i"),
        ("MsgFlags", CMQC.MQMF_NONE, "i"),
        ("OriginalLength", CMQC.MQOL_UNDEFINED, "i"),
    ]


class BNO(MQStruct):
    """MQBNO version 1 (20 bytes): application balancing options of a uniform cluster (accepted,
    carried, not acted on: mqlite has no uniform clusters)."""

    _fields = [
        ("StrucId", CMQC.MQBNO_STRUC_ID, "4s"),
        ("Version", CMQC.MQBNO_VERSION_1, "i"),
        ("ApplType", CMQC.MQBNO_BALTYPE_SIMPLE, "i"),
        ("Timeout", CMQC.MQBNO_TIMEOUT_AS_DEFAULT, "i"),
        ("Options", CMQC.MQBNO_OPTIONS_NONE, "i"),
    ]


class STS(MQStruct):
    """MQSTS version 1: what MQSTAT reports about asynchronous puts."""

    _fields = [
        ("StrucId", b"STAT", "4s"),
        ("Version", 1, "i"),
        ("CompCode", CMQC.MQCC_OK, "i"),
        ("Reason", CMQC.MQRC_NONE, "i"),
        ("PutSuccessCount", 0, "i"),
        ("PutWarningCount", 0, "i"),
        ("PutFailureCount", 0, "i"),
        ("ObjectType", CMQC.MQOT_Q, "i"),
        ("ObjectName", b"", "48s"),
        ("ObjectQMgrName", b"", "48s"),
        ("ResolvedObjectName", b"", "48s"),
        ("ResolvedQMgrName", b"", "48s"),
    ]


class CBD(MQStruct):
    """MQCBD: a callback's descriptor (MQCB). CallbackFunction and CallbackArea hold Python
    objects (the function and anything the application likes), as in ibmmq."""

    _fields = [
        ("StrucId", CMQC.MQCBD_STRUC_ID, "4s"),
        ("Version", CMQC.MQCBD_VERSION_1, "i"),
        ("CallbackType", CMQC.MQCBT_MESSAGE_CONSUMER, "i"),
        ("Options", CMQC.MQCBDO_NONE, "i"),
        ("CallbackArea", 0, "P"),
        ("CallbackFunction", 0, "P"),
        ("CallbackName", b"", "128s"),
        ("MaxMsgLength", CMQC.MQCBD_FULL_MSG_LENGTH, "i"),
    ]


class CBC(MQStruct):
    """MQCBC version 2: what a callback is told (why it is called, its areas, the outcome)."""

    _fields = [
        ("StrucId", CMQC.MQCBC_STRUC_ID, "4s"),
        ("Version", CMQC.MQCBC_VERSION_2, "i"),
        ("CallType", 0, "i"),
        ("Hobj", 0, "i"),
        ("CallbackArea", 0, "P"),
        ("ConnectionArea", 0, "P"),
        ("CompCode", CMQC.MQCC_OK, "i"),
        ("Reason", CMQC.MQRC_NONE, "i"),
        ("State", CMQC.MQCS_NONE, "i"),
        ("DataLength", 0, "i"),
        ("BufferLength", 0, "i"),
        ("Flags", CMQC.MQCBCF_NONE, "i"),
        ("ReconnectDelay", 0, "i"),
    ]


class CTLO(MQStruct):
    """MQCTLO: MQCTL's options and the connection area every callback is given."""

    _fields = [
        ("StrucId", CMQC.MQCTLO_STRUC_ID, "4s"),
        ("Version", CMQC.MQCTLO_VERSION_1, "i"),
        ("Options", CMQC.MQCTLO_NONE, "i"),
        ("Reserved", 0, "i"),
        ("ConnectionArea", 0, "P"),
    ]


def pad(value: str | bytes, length: int) -> bytes:
    """An MQCHAR field: blank padded to its length, as MQ returns names."""
    if isinstance(value, str):
        value = value.encode("ascii", "replace")
    return value[:length].ljust(length, b" ")


def chars(value: bytes) -> bytes:
    """An MQCHAR field's value as bytes: a NUL ends it, trailing blanks are padding."""
    return value.split(b"\0", 1)[0].rstrip(b" ")


def text(value: bytes | bytearray | str) -> str:
    """The trimmed text of an MQCHAR field (NULs and blanks end it)."""
    if isinstance(value, str):
        return value.rstrip(" \0")
    return value.split(b"\0", 1)[0].decode("ascii", "replace").rstrip(" ")
