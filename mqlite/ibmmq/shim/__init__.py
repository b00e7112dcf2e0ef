"""Put this folder first on PYTHONPATH (``mqlite.ibmmq.SHIM_PATH``) and ``import ibmmq`` gives
mqlite's ibmmq face: the opt-in for code that cannot be edited (docs/pymqi.md)."""
