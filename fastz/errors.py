"""Exceptions.  A FastzError is a user error: the CLI prints its message on one line and exits 1."""


class FastzError(Exception):
    """Base class of every error fastz reports to the user without a traceback."""


class OptionsError(FastzError, ValueError):
    """A bad command-line option or option value."""


class InputError(FastzError, ValueError):
    """A bad or unreadable input file or sequence specifier."""


class BackendUnavailable(FastzError, RuntimeError):
    """The requested compute backend (e.g. the GPU) is not available."""

