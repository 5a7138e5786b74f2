"""``python -m fastz.double``: the same as the ``fastz_D`` command (LASTZ's lastz_D)."""
if __name__ == "__main__":
    from .cli import main_D
    main_D()
