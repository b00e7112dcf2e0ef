"""The sans-IO queue-manager engine: MQI semantics over in-memory queues and a journal."""
