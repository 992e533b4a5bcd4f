"""The offline diff between the stack at a git revision and the working tree: what changes,
what replaces and what goes down with it."""
