"""An MQMD that holds its fields packed (``MD.hold``: what an MQPUT answers; ``PackedMD``: what the
server stores) behaves as one that decoded them at once: the same fields read, packed, compared,
copied and printed, whatever is set, read or held again in between (issue 39)."""
from __future__ import annotations

import copy
import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import ibmmq
from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.structs import MD, MQStruct


def _value(code: str) -> st.SearchStrategy[Any]:
    if code.endswith("s"):
        return st.binary(max_size=int(code[:-1]))
    return st.integers(-(2 ** 31), 2 ** 31 - 1)


def _md(cls: type[MQStruct]) -> st.SearchStrategy[bytes]:
    """A packed MQMD of ``cls``'s layout with any field values."""
    return st.fixed_dictionaries({n: _value(c) for n, _d, c in cls._fields}).map(lambda kw: cls(**kw).pack())


def _ops(cls: type[MQStruct]) -> st.SearchStrategy[list[tuple[Any, ...]]]:
    names = [n for n, _d, _c in cls._fields]
    codes = dict((n, c) for n, _d, c in cls._fields)
    field = st.sampled_from(names)
    setting = field.flatmap(lambda n: st.tuples(st.just(n), _value(codes[n])))
    op = st.one_of(
        st.tuples(st.just("hold"), _md(cls)),
        st.tuples(st.just("setattr"), setting),
        st.tuples(st.just("set"), setting),
        st.tuples(st.just("extra"), st.integers(0, 9)),       # an attribute that is no field
        st.tuples(st.just("read"), field),
        st.tuples(st.just("peek"), field),
        st.tuples(st.just("item"), field),
        st.tuples(st.just("unpack"), _md(cls)),
        st.tuples(st.just("copy")),
        st.tuples(st.just("pack")),
    )
    return st.lists(op, max_size=12)


def _run(cls: type[MQStruct], ops: list[tuple[Any, ...]], held: Any, start: bytes | None = None) -> None:
    """``held`` (the structure under test: hold keeps the bytes) against an MQMD of ``cls`` that
    decodes every descriptor at once (``unpack``), step by step, from ``start`` if given."""
    model = cls()
    if start is not None:
        model.unpack(start)
    for op in ops:
        kind = op[0]
        if kind == "hold":
            held.hold(op[1])
            model.unpack(op[1])
        elif kind in ("setattr", "set"):
            name, value = op[1]
            if kind == "set":
                held.set(**{name: value})
                model.set(**{name: value})
            else:
                setattr(held, name, value)
                setattr(model, name, value)
            assert held.peek(name) == model.peek(name)
        elif kind == "extra":
            held.ReportOptions = op[1]
            model.ReportOptions = op[1]
        elif kind == "read":
            assert getattr(held, op[1]) == getattr(model, op[1])
        elif kind == "peek":
            assert held.peek(op[1]) == model.peek(op[1])
        elif kind == "item":
            assert held[op[1]] == model[op[1]]
        elif kind == "unpack":
            held.unpack(op[1])
            model.unpack(op[1])
        elif kind == "copy":
            held = copy.copy(held) if len(ops) % 2 else held.copy()
        else:
            assert held.pack() == model.pack()
    assert held.pack() == model.pack()
    assert getattr(held, "ReportOptions", None) == getattr(model, "ReportOptions", None)
    assert pickle.loads(pickle.dumps(held)).get() == model.get()
    assert held.get() == model.get() and str(held) == str(model)
    if type(held) is type(model):
        assert held == model and repr(held) == repr(model)


@settings(max_examples=300, deadline=None)
@given(ops=_ops(MD), first=_md(MD))
def test_a_held_mqmd_is_the_mqmd_decoded_at_once(ops: list[tuple[Any, ...]], first: bytes) -> None:
    held = MD()
    held.hold(first)
    _run(MD, [("hold", first), *ops], held)
    _run(MD, ops, MD.held(first), first)
    _run(MD, ops, MD())


@settings(max_examples=150, deadline=None)
@given(ops=_ops(ibmmq.MD), first=_md(ibmmq.MD))
def test_ibmmqs_mqmd_held(ops: list[tuple[Any, ...]], first: bytes) -> None:
    held = ibmmq.MD()
    held.hold(first)
    _run(ibmmq.MD, [("hold", first), *ops], held)
    assert held.StrucId == held._StrucId


@settings(max_examples=150, deadline=None)
@given(ops=_ops(MD), first=_md(MD))
def test_a_packedmd_decodes_before_a_field_is_set(ops: list[tuple[Any, ...]], first: bytes) -> None:
    _run(MD, ops, PackedMD.of(first), first)
    md = PackedMD.of(first)
    md.Priority = 3
    assert "_raw" not in md.__dict__ and md.pack()[MD.field_slice("Priority")] == MD(Priority=3).pack()[
        MD.field_slice("Priority")]


def test_held_fields_and_what_is_no_field() -> None:
    raw = MD(Persistence=1, MsgId=b"A" * 24, Format=b"MQSTR   ").pack()
    md = MD()
    md.hold(raw)
    assert md.__dict__ == {"_raw": raw}                     # nothing decoded yet
    assert md.pack() is raw                                 # sent again as it came
    md.MsgId = b""
    assert md.pack() == MD(Persistence=1, Format=b"MQSTR   ").pack()
    assert md.Persistence == 1 and "_raw" not in md.__dict__
    try:
        md.NoSuchField
    except AttributeError as e:
        assert "NoSuchField" in str(e)
    else:
        raise AssertionError("a name that is no field must raise AttributeError")
    md.hold(raw)
    md.Priority = "x"
    try:
        md.pack()
    except TypeError as e:
        assert "cannot pack" in str(e)
    else:
        raise AssertionError("a field of the wrong type must not pack")
