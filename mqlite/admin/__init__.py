"""Administration: PCF commands declared once in a table (``commands``), each a function over the
``Admin`` context (``context``) and its parameters (``params``), dispatched with authority checked
in one place (``dispatch``); the command server in ``server/`` is the agent that feeds it."""
