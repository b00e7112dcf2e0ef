"""The queue-manager server process: listeners, connection threads, durability, shutdown."""
