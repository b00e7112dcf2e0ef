"""Queue-sharing groups in the server process: membership, shared definitions, the IGQ agent."""
