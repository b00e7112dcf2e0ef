"""Publish/subscribe: the topic tree and its administrative objects (``topics``); see
docs/pubsub.md."""
from mqlite.pubsub.topics import AS_PARENT, BASE, admin_node, ancestors, by_string, resolved, resolved_all

__all__ = ["AS_PARENT", "BASE", "admin_node", "ancestors", "by_string", "resolved", "resolved_all"]
