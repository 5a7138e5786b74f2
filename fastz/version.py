"""Program token printed where LASTZ prints "lastz.v1.04.22" (LAV d stanza, AXT/MAF headers)."""
from . import __version__

PROGRAM_TOKEN = f"fastz.v{__version__}"
