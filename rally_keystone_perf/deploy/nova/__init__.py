"""The nova-fake stack: its configs (config), set-up commands (manage),
readiness (ready) and the two phases around Keystone's start (stack)."""
