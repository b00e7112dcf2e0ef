"""The MQ constant modules (issue 17): generated from shared/reference/constants, every name
with MQ's value, none invented."""
from __future__ import annotations

import os
import subprocess
import sys

from mqlite.cmq import CMQC, CMQCFC, CMQSTRC, CMQXC, CMQZC

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = os.path.join(os.path.dirname(REPO), "shared", "reference", "constants")


def test_the_committed_modules_are_what_the_generator_writes() -> None:
    # The project is always checked out with ../shared beside it (CI too): without the tables
    # there is nothing to check the modules against, and that is a failure, not a skip.
    assert os.path.isdir(REFERENCE), f"{REFERENCE} is missing: the checkout needs ../shared beside it"
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_constants.py"), "--check"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_the_sizes_of_the_modules() -> None:
    def names(m: object) -> int:
        return sum(1 for n in vars(m) if n.startswith("MQ"))
    assert (names(CMQC), names(CMQCFC), names(CMQXC), names(CMQZC)) == (2613, 2357, 462, 112)


def test_values_mqlite_once_had_wrong_are_mqs() -> None:
    assert [CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT, CMQCFC.MQRCCF_REPOS_NAME_CONFLICT,
            CMQCFC.MQRCCF_CLUSTER_Q_USAGE_ERROR, CMQCFC.MQRCCF_ACTION_VALUE_ERROR,
            CMQCFC.MQRCCF_COMMS_LIBRARY_ERROR, CMQCFC.MQRCCF_NETBIOS_NAME_ERROR,
            CMQCFC.MQRCCF_BROKER_COMMAND_FAILED, CMQCFC.MQRCCF_CFST_CONFLICTING_PARM,
            CMQCFC.MQRCCF_PATH_NOT_VALID, CMQCFC.MQRCCF_PARM_SYNTAX_ERROR,
            CMQCFC.MQRCCF_PWD_LENGTH_ERROR] == list(range(3088, 3099))
    assert (CMQCFC.MQRCCF_MSG_SEQ_NUMBER_ERROR, CMQCFC.MQRCCF_PING_DATA_COUNT_ERROR,
            CMQCFC.MQRCCF_PING_DATA_COMPARE_ERROR) == (3030, 3031, 3032)
    assert CMQCFC.MQCACF_NAMELIST_NAMES == 3013
    assert (CMQCFC.MQIACH_CLWL_CHANNEL_RANK, CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY,
            CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT, CMQCFC.MQIACH_CHANNEL_DISP) == (1577, 1578, 1579, 1580)
    assert (CMQC.MQCNO_CURRENT_VERSION, CMQXC.MQCD_CURRENT_VERSION) == (8, 13)
    assert (CMQCFC.MQCMD_START_CHANNEL_LISTENER, CMQCFC.MQCMD_STOP_CHANNEL_LISTENER,
            CMQCFC.MQCMD_COMMAND_EVENT) == (31, 142, 99)


def test_no_invented_names() -> None:
    for module, name in ((CMQCFC, "MQCMD_START_LISTENER"), (CMQCFC, "MQCMD_STOP_LISTENER"),
                         (CMQCFC, "MQIACH_USE_DLQ"), (CMQCFC, "MQRCCF_STATUS_TYPE_ERROR"),
                         (CMQC, "MQ_MAX_MSG_LENGTH")):
        assert not hasattr(module, name), name


def test_character_constants_keep_their_padding_and_names_map_back() -> None:
    assert CMQC.MQFMT_STRING == b"MQSTR   " and CMQC.MQFMT_NONE == b" " * 8
    assert CMQC.MQMI_NONE == b"\0" * 24 and CMQC.MQCI_NONE == b"\0" * 24
    assert CMQSTRC.MQRC_DICT[CMQC.MQRC_NO_MSG_AVAILABLE] == "MQRC_NO_MSG_AVAILABLE"
    assert CMQSTRC.MQRCCF_DICT[3088] == "MQRCCF_CLUSTER_NAME_CONFLICT"
