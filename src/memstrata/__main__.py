"""``python -m memstrata``: the same command line as the ``memstrata`` script."""

from memstrata.cli import main

if __name__ == "__main__":
    main()
