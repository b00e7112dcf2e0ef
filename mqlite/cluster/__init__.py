"""Clusters: the workload algorithm (``wlm``, a pure function of MQ's rules), the cluster cache
and repository exchange (``repository``, sans-IO) and a queue manager's part in its clusters
(``state``: published records, routes, instances, cluster transmission queues)."""
