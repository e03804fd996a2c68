"""The ``wacky`` command line. It sits above every layer and imports each one lazily."""
