"""A frame's payload (the journal operations, in ``marshal``'s format) and what a run of frames
cancels before its rows are written (``cancelled``, ``Removals``): the recovery log's pure parts
(store/log.py)."""
from __future__ import annotations

import marshal
from typing import Any, Iterable

from mqlite.engine.ports import (
    DelMsg,
    DropChsync,
    DropObject,
    JournalOp,
    MoveDamaged,
    Prepare,
    PreparedRow,
    PurgeQueue,
    PutMsg,
    Resolve,
    SaveChsync,
    SaveMeta,
    SaveObject,
    SetBackout,
)

_TYPES: tuple[type, ...] = (PutMsg, DelMsg, SetBackout, PurgeQueue, MoveDamaged, SaveObject, DropObject,
                            SaveMeta, SaveChsync, DropChsync, Prepare, Resolve)
_TAG = {t: i for i, t in enumerate(_TYPES)}


def encode(ops: list[JournalOp]) -> bytes:
    """The payload of a frame (``marshal`` takes tuples, not named tuples)."""
    out: list[tuple[Any, ...]] = []
    for op in ops:
        if type(op) is Prepare:
            out.append((_TAG[Prepare], op.xid, op.at, [tuple(r) for r in op.rows]))
        else:
            out.append((_TAG[type(op)], *op))
    return marshal.dumps(out)


def decode(payload: bytes) -> list[JournalOp]:
    ops: list[JournalOp] = []
    for tag, *fields in marshal.loads(payload):
        t = _TYPES[tag]
        if t is Prepare:
            ops.append(Prepare(fields[0], fields[1], [PreparedRow(*r) for r in fields[2]]))
        else:
            ops.append(t(*fields))
    return ops


def cancelled(ops: list[JournalOp], later: "Removals | None" = None) -> list[JournalOp]:
    """``ops`` without the messages both put and removed among them, or put among them and removed
    for good in the frames after them (``later``, which the applier keeps counted): applied, the
    rest leaves ``qmgr.db`` as all of them would, a later removal of a row never written being
    nothing (a message put and got while its frame waited is never written there, as MQ's queue
    files never see a message put and got between two checkpoints). A row's BackoutCount hardened
    in between goes with it; a message set aside as damaged or named by a prepared unit in between
    is kept (those read or record its row)."""
    born: dict[int, list[int]] = {}       # seq -> positions of its PutMsg and SetBackouts so far
    drop: list[int] = []
    for i, op in enumerate(ops):
        if isinstance(op, PutMsg):
            born.setdefault(op.seq, []).append(i)
        elif isinstance(op, DelMsg):
            at = born.pop(op.seq, None)
            if at is not None:
                drop += at
                drop.append(i)
        elif isinstance(op, SetBackout):
            if op.seq in born:
                born[op.seq].append(i)
        elif born and isinstance(op, (MoveDamaged, Prepare)):
            for seq in _named(op):
                born.pop(seq, None)
    if born and later is not None:
        for seq, at in born.items():
            if seq in later:
                drop += at
    if not drop:
        return ops
    gone = set(drop)
    return [op for i, op in enumerate(ops) if i not in gone]


class Removals:
    """What a run of frames removes for good: the messages it removes (``DelMsg``), less any it
    also sets aside as damaged or names in a prepared unit (what spares a put of the frames before
    them its row; ``seq in removals``). Counted per message as frames join the run (``add``) and
    leave it (``drop``): the applier keeps one for the frames after the run it applies, so that
    asking about a put is a look-up, not a pass over every frame waiting (a second of them)."""
    __slots__ = ("gone", "kept")

    def __init__(self, frames: Iterable[list[JournalOp]] = ()) -> None:
        self.gone: dict[int, int] = {}
        self.kept: dict[int, int] = {}
        for ops in frames:
            self.add(ops)

    def add(self, ops: list[JournalOp], step: int = 1) -> None:
        """The journal writer adds a frame while the applier may be reading (``cancelled``, without
        the lock): what keeps a row is counted before the removals, so a look-up meanwhile may miss
        a removal (a row written that was not needed) but never sees one without what keeps its
        row. Frames leave (``drop``) on the applier's own thread."""
        for op in ops:
            if type(op) is MoveDamaged or type(op) is Prepare:
                for seq in _named(op):
                    _count(self.kept, seq, step)
        for op in ops:
            if type(op) is DelMsg:
                _count(self.gone, op.seq, step)

    def drop(self, ops: list[JournalOp]) -> None:
        self.add(ops, -1)

    def __contains__(self, seq: object) -> bool:
        return seq in self.gone and seq not in self.kept


def _count(counts: dict[int, int], key: int, step: int) -> None:
    n = counts.get(key, 0) + step
    if n:
        counts[key] = n
    else:
        del counts[key]


def _named(op: JournalOp) -> list[int]:
    if type(op) is MoveDamaged:
        return [op.seq]
    return [r.seq for r in op.rows] if type(op) is Prepare else []
