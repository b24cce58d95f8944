"""One rule per module; modules here are discovered by :func:`tfguard.registry.all_rules`."""
