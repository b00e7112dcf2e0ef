"""Channel statuses as the workload algorithm sees them: every change of state moves the generation
that lets it keep its answers, including a status appearing (INACTIVE -> INITIALIZING) or going away
(-> INACTIVE)."""
from __future__ import annotations

from mqlite.channels.status import ChannelStatus, StatusTable


def test_every_change_a_channel_state_can_make_moves_the_generation() -> None:
    table = StatusTable()
    seen = [table.changes[0]]

    def moved() -> bool:
        seen.append(table.changes[0])
        return seen[-1] > seen[-2]

    st = ChannelStatus("TO.PR1", "CLUSSDR", "INITIALIZING", changes=table.changes)
    table["TO.PR1"] = st                      # INACTIVE -> INITIALIZING
    assert moved()
    st.set("STARTING", "NETCONNECT")
    assert moved()
    st.set("STARTING", "SSLHANDSHAKE")        # only the substate: the workload algorithm does not care
    assert not moved()
    st.set("RUNNING")
    assert moved()
    del table["TO.PR1"]                       # RUNNING -> INACTIVE
    assert moved()
    table["TO.PR1"] = ChannelStatus("TO.PR1", "CLUSSDR", "STOPPED", changes=table.changes)
    assert moved()
    assert table.pop("TO.PR1").state == "STOPPED"
    assert moved()
    assert table.pop("TO.PR1", None) is None  # nothing there: nothing changed
    assert not moved()
