"""The static checker: discover → parse → analyse → rules → suppress → report, without running the code.

Never imports TensorFlow. ``engine.check_paths`` / ``engine.check_source`` are its entry points; ``analysis/``
holds the facts rules read, ``checks/`` one rule per module, ``formats/`` the output formats (one per
``--output-format``).
"""
