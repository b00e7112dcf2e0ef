"""What-if routing as a Spark job (issue 68): routing logs read as a DataFrame and replayed through
the workload algorithm (mqlite.cluster.routelog.replay, over cluster/wlm.py's pure ``choose``) under
a changed configuration.

    from mqlite.spark.whatif import outcomes
    df = outcomes(spark, "/data/qmgrs/*/routing/routing.jsonl", ["ALTER CHANNEL(TO.PR1) CLWLWGHT(80)"])
    df.groupBy("queue", "predicted_qmgr").count().show()

Each log file is one queue manager's decisions, in order, with rule 18's use record carried from
one to the next, so a file is replayed whole in one task (``groupBy(file).applyInPandas``); the
files of a cluster's queue managers are replayed in parallel."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

OUTCOME_SCHEMA = ("source string, seq bigint, queue string, qmgr string, channel string, predicted_qmgr string, "
                  "predicted_channel string, rule string, predicted_rule string, moved boolean")


def outcomes(spark: Any, path: str, changes: Iterable[str] = ()) -> Any:
    """A DataFrame of every recorded decision in the logs at ``path`` (a file, a directory or a
    glob) with the replay's choice under ``changes`` (MQSC-like, see routelog.parse_change)."""
    from pyspark.sql import functions as F

    from mqlite.cluster import routelog
    texts = list(changes)
    for text in texts:
        routelog.parse_change(text)        # a bad change fails here, on the driver, before any task

    def replay_file(frame: Any) -> Any:
        import dataclasses

        import pandas as pd

        from mqlite.cluster import routelog as rl
        records = rl.read_log(frame["value"])
        rows = [dataclasses.asdict(o) | {"moved": o.moved}
                for o in rl.replay(records, [rl.parse_change(t) for t in texts])]
        return pd.DataFrame(rows, columns=[c.split()[0] for c in OUTCOME_SCHEMA.split(", ")])

    lines = spark.read.text(path).withColumn("file", F.input_file_name())
    return lines.groupBy("file").applyInPandas(replay_file, OUTCOME_SCHEMA)
