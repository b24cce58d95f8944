"""Where tfguard plugs into the tools teams already run: the pytest plugin (``pytest --tfguard``).

``pytest_plugin`` holds pytest's hooks, options, marker and fixture; ``guarded`` guards the
sessions of one test; ``budgets`` turns their reports into the test's verdict. Nothing here is
imported by ``import tfguard``, and pytest loads the plugin without importing TensorFlow.
"""
