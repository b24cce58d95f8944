"""One rule per module; modules here are discovered by :func:`tfguard.static.registry.all_rules`."""
