"""Issue 68: an option the data source does not read is refused with the nearest known name (a
typo in ``maxMessagesPerTrigger`` gave one unbounded batch, silently). Spark's option names are
case-insensitive, and so is the check; the options Spark passes itself (``path``) are known."""
from __future__ import annotations

import pytest

from mqlite.spark.options import KNOWN, MQLiteError, Options

BASE = {"queueManager": "QM1", "queue": "IN.Q"}


@pytest.mark.parametrize("typo,meant", [("maxMessagePerTrigger", "maxMessagesPerTrigger"),
                                        ("batchsise", "batchSize"), ("queueManger", "queueManager"),
                                        ("checkpointLoc", "checkpointLocation"), ("partitionsize2", "partitionSize")])
def test_a_typo_names_the_option_meant(typo: str, meant: str) -> None:
    with pytest.raises(MQLiteError) as e:
        Options.of({**BASE, typo: "5"})
    assert str(e.value) == f"option {typo!r} is not an option of the mqlite data source; did you mean {meant!r}?"


def test_a_name_near_nothing_lists_the_options() -> None:
    with pytest.raises(MQLiteError) as e:
        Options.of({**BASE, "colour": "red"})
    assert str(e.value).startswith("option 'colour' is not an option of the mqlite data source (its options: "
                                   "queueManager, queue, topic,")


def test_every_known_option_in_any_case_is_taken() -> None:
    values = {"mode": "get", "instances": "local", "bind": "open", "batchSize": "7", "partitionSize": "9",
              "maxMessagesPerTrigger": "3", "writerId": "w", "checkpointLocation": "/tmp/c", "subscription": "s",
              "user": "u", "password": "p", "path": "x", "startingOffsets": '{"QM1": 4}', "endingOffsets": "latest",
              "selector": "colour = 'red'", "failOnDataLoss": "FALSE", "pushFilters": "true"}
    assert set(values) | set(BASE) | {"topic", "channel", "conname"} == set(KNOWN)
    opts = Options.of({k.upper(): v for k, v in {**BASE, **values}.items()})
    assert (opts.mode, opts.batch_size, opts.partition_size, opts.max_per_trigger, opts.writer_id) == (
        "get", 7, 9, 3, "w")
    assert (opts.starting, opts.ending, opts.selector, opts.fail_on_data_loss, opts.push_filters) == (
        '{"QM1": 4}', "latest", "colour = 'red'", False, True)
