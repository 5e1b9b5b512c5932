"""What several test modules share and pytest fixtures cannot carry: paths, skip markers, servers
and documents that tests build on. ``tests/python`` is on the import path (``pythonpath`` in
pyproject.toml), so a test module imports ``support.<name>``; fixtures stay in ``conftest.py``."""
