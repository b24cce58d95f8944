"""output: what the runtime says, as text, JSON, plots, TensorBoard scalars and live alerts (formats.FORMATS)."""
