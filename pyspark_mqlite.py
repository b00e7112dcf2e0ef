"""Spark finds this module by its name (``pyspark_*``) and registers ``DefaultSource`` as the
``mqlite`` format, so ``spark.read.format("mqlite")`` works without ``mqlite.spark.register``."""
from mqlite.spark import MQLiteDataSource as DefaultSource

__all__ = ["DefaultSource"]
