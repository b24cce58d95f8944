"""Demo training scripts bundled with tfguard: the field reports (seeds) and their fixed twins."""
