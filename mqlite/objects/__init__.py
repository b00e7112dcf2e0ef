"""Object definitions: the attribute table, naming rules and MQ's system default objects."""
