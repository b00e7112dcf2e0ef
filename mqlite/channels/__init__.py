"""Message channel agents: sender and receiver channels between queue managers, exactly once."""
