"""Facts about one module computed once and shared by every rule."""
