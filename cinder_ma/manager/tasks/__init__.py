"""Tasks of the manager's flows: one side effect each, with its revert."""
