"""Command line: ``fastz TARGET [QUERY] [LASTZ options]`` (drop-in), ``fastz align ...``,
``fastz compare A B``, ``fastz dotplot FILE.rdotplot -o plot.png``.

The ``align`` words are handed untouched to ``fastz.lastz_args.parse_lastz_argv``, so
every LASTZ spelling works (``--opt=value`` and BLASTZ shortcuts such as ``K=3000``).
Help text is generated here, grouped by stage, with defaults read from ``Options()`` and
``Options().resolved()`` so it cannot drift.  A FastzError becomes one line
``fastz: <message>`` on stderr and exit status 1; anything else keeps its traceback.
"""
from __future__ import annotations

import os
import signal
import sys
import textwrap
import threading

# fastz calls no BLAS, but numpy's OpenBLAS starts a thread per core that spins for a
# while at import: 0.1 s of CPU a run, taken from the workers on a small machine (set
# before numpy is first imported; a user's own setting wins)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from . import __version__  # noqa: E402
from .errors import FastzError  # noqa: E402
from .lastz_words import (FIELD_ALIASES, FORMATS, GENERAL_FIELDS, HelpRequested,  # noqa: E402
                          YASRA, YASRA_NEW)
from .options import Options  # noqa: E402
from .scoring import double_scores, score_type  # noqa: E402

PROG = "fastz"
LASTZ_VERSION = "1.04.22"

# --- Help text ------------------------------------------------------------------------


def _onoff(flag: bool) -> str:
    return "on" if flag else "off"


def _help_rows(d: Options, r: Options) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """(group, [(spelling, description, default)]) with defaults from ``d = Options()``
    and ``r = d.resolved()``."""
    return [
        ("Sequences", [
            ("TARGET [QUERY]", "file[/name][{mask}][[actions]][-]; no QUERY = stdin "
             "(--help=files)", ""),
            ("--self", "align the target with itself (implies --notrivial)",
             _onoff(d.self_compare)),
            ("--strand=both|plus|minus", "query strand(s) to search (B=2|0|-1)", d.strand),
            ("--action:target=<a>, --action:query=<a>", "append [actions] to a specifier", ""),
        ]),
        ("Seeding", [
            ("--seed=<seed>", "12of19, 14of22, match<n>, half<n> or a 1/0/T pattern "
             "(T=1..4, W=<n>)", d.seed_name),
            ("--[no]transition[=2]", "transitions allowed in a seed hit (T=0)",
             str(d.transition)),
            ("--step=<n>", "index every n-th target position (Z=)", str(d.step)),
            ("--word=<bits>", "most bits in the seed-word index (heavier = overweight)",
             str(d.word)),
            ("--filter=[<T>,]<M>", "seed hits need M matches and at most T transversions",
             "off"),
            ("--twins=[<min>..]<max>", "require two seed hits close on one diagonal", "off"),
            ("--[no]recoverseeds", "recover hits lost to diagonal-hash collisions",
             _onoff(d.recover_seeds)),
        ]),
        ("Filtering (gap-free extension)", [
            ("--[no]gfextend", "x-drop extension of seed hits to HSPs", _onoff(d.gfextend)),
            ("--xdrop=<score>", "x-drop threshold (X=)", f"10*sub[A][A] = {r.xdrop}"),
            ("--hspthresh=<score>|top<n>|top<p>%", "HSP score threshold (K=)",
             r.hspthresh_text),
            ("--[no]entropy", "entropy-adjust HSP scores (P=0|1, --entropy=report)",
             _onoff(d.entropy)),
            ("--exact=<len>, --mismatch=<n>,<len>", "alternative gap-free extenders", "off"),
            ("--justhits", "report seed hits (= --nogfextend --nogapped)", "off"),
            ("--segments=<file>", "read anchors from a file instead of seeding", "off"),
            ("--[no]chain[=<diag>,<anti>]", "chain HSPs (G=, R=; C=0..3)", _onoff(d.chain)),
        ]),
        ("Gapped extension", [
            ("--[no]gapped", "y-drop gapped extension from the anchors (--ungapped)",
             _onoff(d.gapped)),
            ("--gap=[<open>,]<extend>", "gap penalties; a gap of n costs open+n*extend "
             "(O=, E=)", f"{r.gap_open},{r.gap_extend}"),
            ("--ydrop=<score>", "y-drop threshold (Y=)", f"open+300*extend = {r.ydrop}"),
            ("--gappedthresh=<score>", "alignment score threshold (L=)",
             f"hspthresh = {r.gappedthresh_text}"),
            ("--noytrim", "don't trim extensions that reach a sequence end", _onoff(not d.ytrim)),
            ("--inner=<score>", "interpolation threshold, 0 = off (H=)", str(d.inner)),
            ("--allgappedbounds", "bound extensions by all earlier extensions",
             _onoff(d.allgappedbounds)),
            ("--notrivial", "drop a trivial self-alignment", _onoff(d.notrivial)),
            ("--masking=<n>", "dynamically mask target bases aligned n times (M=)",
             str(d.masking)),
            ("--allocate:traceback=<bytes>", "traceback memory, K/M suffixes (m=)",
             str(d.traceback_bytes)),
        ]),
        ("Scoring", [
            ("--scores=<file>", "substitution matrix and settings file (Q=)", "HOXD70"),
            ("--match=<R>[,<P>]", "+R/-P scores; derives gap, K, X, Y (U=, --unitscores)",
             "off"),
            ("--ambiguous=n|iupac[,[<r>,]<p>]", "N (or any IUPAC code) scores r against "
             "itself, -p against bases", "off"),
            ("<nuc><nuc>:<score>", "override one substitution score, e.g. AC:-50", ""),
        ]),
        ("Output", [
            ("--format=<format>", "lav, lav+, axt, axt+, maf, maf+, maf-, general[-][:<fields>],"
             " cigar, sam, softsam, paf, segments, ... (--help=formats)", d.format),
            ("--output=<file>", "write alignments to a file", "stdout"),
            ("--markend", "end the output with '# lastz end-of-file'", _onoff(d.markend)),
            ("--identity=<min>[..<max>]", "keep alignments with this percent identity", "off"),
            ("--coverage=<min>[..<max>]", "... this percent of the query covered", "off"),
            ("--continuity=<min>[..<max>]", "... this percent continuity", "off"),
            ("--filter=nmatch:<n>", "... at least n matches (also nmismatch:0..<n>, "
             "ngap:0..<n>, cgap:0..<n>)", "off"),
            ("--show=defaults", "print the resolved settings before the output "
             "(--help=defaults: print and stop)", "off"),
        ]),
        ("System (fastz only; not recorded in output headers)", [
            ("--workers=<n>", "worker processes, 0 = all cores", str(d.workers)),
            ("--dp=<mode>", "gapped DP: single pass, split (inspector/executor), auto",
             d.dp),
            ("--backend=auto|cpu|gpu", "compute backend; auto uses a GPU when present",
             d.backend),
            ("--quiet", "no progress messages", _onoff(d.quiet)),
            ("--stats[=<file>]", "timing and counts per stage (stderr or file)", "off"),
            ("--help[=files|formats|shortcuts|yasra]", "this text, or a topic", ""),
            ("--version", "print the version", ""),
        ]),
    ]


def help_text() -> str:
    """The grouped option list printed by ``fastz --help`` and ``fastz align --help``."""
    d = Options(target="TARGET")
    r = d.resolved()
    out = [f"{PROG} {__version__} -- whole-genome DNA alignment, byte-identical to "
           f"LASTZ {LASTZ_VERSION}",
           "",
           f"usage: {PROG} TARGET [QUERY] [options]        (LASTZ drop-in)",
           f"       {PROG} align TARGET [QUERY] [options]",
           f"       {PROG}_D TARGET [QUERY] [options]      (lastz_D drop-in: double scores)",
           f"       {PROG} compare A B [--format=<format>]",
           f"       {PROG} dotplot ALIGNMENTS.rdotplot -o plot.png   (needs matplotlib)",
           "",
           "Options are spelled as in LASTZ, values attached with '='; defaults in [ ].",
           "BLASTZ shortcuts (K=, L=, H=, ...) are accepted too (--help=shortcuts)."]
    for group, rows in _help_rows(d, r):
        out += ["", f"{group}:"]
        for spelling, text, default in rows:
            tail = f" [{default}]" if default else ""
            body = textwrap.wrap(text + tail, width=79 - 32, break_on_hyphens=False)
            if len(spelling) <= 28:
                out.append(f"  {spelling:<28}  {body[0]}")
            else:
                out += [f"  {spelling}", f"{'':<32}{body[0]}"]
            out += [f"{'':<32}{line}" for line in body[1:]]
    return "\n".join(out) + "\n"


def _topic_text(kind: str) -> str:
    if kind == "files":
        return ("A TARGET or QUERY specifier is\n"
                "    [nickname::]filename[/selectname][{maskfile}][[actions]][-]\n"
                "filename: FASTA, FASTQ, 2bit, nib or hsx; /selectname picks one sequence\n"
                "of a 2bit or hsx file; a trailing - aligns the reverse complement.  Actions\n"
                "(comma-separated inside brackets): <start>..<end>, <start>#<len>, <center>^<len>,\n"
                "revcomp, multiple, separator=<c>, subset=<file>, subsample=<k>/<n>, unmask,\n"
                "softmask=<file>, xmask=<file>, nmask=<file>, nickname=<name>,\n"
                "nameparse=full|alphanum|darkspace|tag:<marker>, format=<type>.\n")
    if kind == "formats":
        public = [f for f in GENERAL_FIELDS if f not in ("NA", "~", "hspid", "phash", "ahash")]
        return ("Output formats (--format=<format>):\n  " + ", ".join(sorted(FORMATS)) + "\n\n"
                "--format=general[-]:<fields> takes a comma-separated list of:\n  "
                + ", ".join(public) + "\naliases: "
                + ", ".join(f"{a}={c}" for a, c in FIELD_ALIASES.items()) + "\n")
    if kind == "shortcuts":
        rows = [("B=0|2|-1", "--strand=plus|both|minus"), ("C=0..3", "--[no]chain --[no]gapped"),
                ("c=1", "--census"), ("E=<n>", "--gap=<..,n>"), ("G=<n>", "--chain=<n,..>"),
                ("H=<n>", "--inner=<n>"), ("K=<n>", "--hspthresh=<n>"),
                ("L=<n>", "--gappedthresh=<n>"), ("M=<n>", "--masking=<n>"),
                ("m=<bytes>", "--allocate:traceback=<bytes>"), ("O=<n>", "--gap=<n,..>"),
                ("P=0|1|>1", "--noentropy | --entropy | --entropy=report"),
                ("Q=<file>", "--scores=<file>"), ("R=<n>", "--chain=<..,n>"),
                ("T=1|2|3|4", "--seed=12of19|14of22 with/without --transition"),
                ("T=0", "--notransition"), ("U=1", "--match=1,1"),
                ("W=<n>", "--seed=match<n>"), ("X=<n>", "--xdrop=<n>"), ("Y=<n>", "--ydrop=<n>"),
                ("Z=<n>", "--step=<n>")]
        return "BLASTZ shortcuts:\n" + "".join(f"  {a:<12} same as {b}\n" for a, b in rows)
    if kind == "yasra":
        return "yasra-specific options\n" + "".join(
            f"  {name:<15} ({text}{YASRA_NEW})\n" for name, text in YASRA.items())
    if kind == "version":
        return version_text()
    return help_text()


def version_text() -> str:
    if double_scores():
        return f"{PROG}_D {__version__} (drop-in for lastz_D {LASTZ_VERSION}: double scores)\n"
    return f"{PROG} {__version__} (drop-in for lastz {LASTZ_VERSION})\n"


# --- Commands -------------------------------------------------------------------------

_TOP_LEVEL = {"align", "compare", "dotplot", "workflow"}


class _FastzGroup(click.Group):
    """Adds the bare drop-in form: anything that is not a subcommand runs ``align``."""

    def parse_args(self, ctx, args):
        if not args or args[0] in ("--help", "-h", "--help=all"):
            click.echo(help_text(), nl=False)
            ctx.exit(0 if args else 1)
        if args[0] in ("--version", "-v"):
            click.echo(version_text(), nl=False)
            ctx.exit(0)
        if args[0] not in _TOP_LEVEL:
            args = ["align", *args]
        if args[0] == "align":                  # the raw words, untouched by click's parser
            ctx.meta["fastz.align_words"] = list(args[1:])
        if args[0] == "workflow":               # (keeps "--" for fastz.workflow)
            ctx.meta["fastz.workflow_words"] = list(args[1:])
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # click itself turns an EPIPE into a silent exit 1: keep it ours (141)
            raise ClosedPipe() from None


@click.group(cls=_FastzGroup, add_help_option=False)
def cli():
    """fastz: whole-genome DNA alignment, byte-identical to LASTZ."""


@cli.command("workflow", add_help_option=False,
             context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                               "allow_interspersed_args": False})
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def workflow_cmd(ctx, words):
    """Align whole genomes chunk by chunk with Snakemake (fastz workflow --help)."""
    from .workflow import main as workflow_main
    return workflow_main(ctx.meta.get("fastz.workflow_words", list(words)))


@cli.command("align", add_help_option=False,
             context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                               "allow_interspersed_args": False})
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def align_cmd(ctx, words):
    """Align TARGET with QUERY (LASTZ options, e.g. --format=maf K=4000)."""
    from .lastz_args import parse_lastz_argv, show_defaults_text
    words = ctx.meta.get("fastz.align_words", list(words))
    try:
        opts = parse_lastz_argv(words)
    except HelpRequested as req:
        click.echo(_topic_text(req.kind), nl=False)
        return 0
    if opts.show_defaults == "exit":                     # --help=defaults
        from .scoring import scoreset_from_options
        scores = scoreset_from_options(opts)
        click.echo(show_defaults_text(opts.resolved(scores), scores), nl=False)
        return 0
    from . import _kernel_cache
    from .pipeline import run
    _kernel_cache.first_run_notice(sys.stderr)
    code = run(opts)
    global _QUICK_EXIT
    _QUICK_EXIT = True          # the output is complete and closed, the workers gone
    return 0 if code is None else int(code)


@cli.command("compare", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("a")
@click.argument("b")
@click.option("--format", "fmt", default=None, help="alignment format of A and B "
              "(default: guessed)")
def compare_cmd(a, b, fmt):
    """Compare two alignment files (e.g. fastz's and lastz's output)."""
    from .compare import main as compare_main
    code = compare_main(a, b) if fmt is None else compare_main(a, b, fmt)
    return 0 if code is None else int(code)


@cli.command("dotplot", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("alignments", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="image to write (PNG; other suffixes as matplotlib knows them)")
@click.option("--title", default=None, help="plot title (default: the segment count)")
@click.option("--size", default=8.0, show_default=True, help="width and height in inches")
@click.option("--dpi", default=100, show_default=True, help="dots per inch")
def dotplot_cmd(alignments, output, title, size, dpi):
    """Draw a dot plot of ALIGNMENTS (fastz/lastz --format=rdotplot output)."""
    from .io.dotplot import draw_dotplot, read_rdotplot
    draw_dotplot(read_rdotplot(alignments), output, title=title, size=size, dpi=dpi)
    return 0


# --- Signals ---------------------------------------------------------------------------

_STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP")
                      if hasattr(signal, n))


def _kill_workers() -> None:
    """Stop this process's worker processes at once."""
    import multiprocessing
    for proc in list(getattr(multiprocessing.process, "_children", ())):
        try:
            proc.kill()
        except Exception:       # noqa: BLE001 (already gone)
            pass


_MAIN_PID = [0]


def _on_signal(signum, frame):
    """Stop now: kill the workers, remove the temporary output file (or cut a
    regular-file stdout back), say why in one line and exit 128 + signal.

    Nothing is unwound: an exception raised here could surface inside a compiled
    kernel's dispatcher, which numba does not survive (a segfault, seen on SIGTERM
    during gapped extension), and ``finally`` blocks could wait for busy workers.
    A worker (a forked child) just exits; the parent reports the lost worker.
    """
    if os.getpid() != _MAIN_PID[0]:
        os._exit(128 + signum)
    _STOPPING.acquire()       # (the watcher and the handler both come here: one goes on)
    _kill_workers()
    from .io.output import abort_cleanup
    abort_cleanup()
    name = signal.Signals(signum).name
    try:
        os.write(2, f"{PROG}: stopped by {name}; no output was completed\n".encode())
    except OSError:
        pass
    os._exit(128 + signum)


_STOPPING = threading.Lock()
#: the signal watcher's pipe (read end, write end) while a run has one
_WAKE: list[int] = []


def _watch_signals(read_end: int) -> None:
    """The watcher thread: Python runs a signal handler only between bytecodes of the
    main thread, so a stop signal waited for the compiled kernel the main thread was
    in (half a minute, seen in one long extension); the C-level handler writes the
    signal's number to this pipe at once (``signal.set_wakeup_fd``), and this thread,
    free to run while the kernel has released the GIL (the long-running kernels are
    ``nogil``), stops the run from here.  A 0 byte (or the pipe's end) ends the
    watch."""
    try:
        while True:
            got = os.read(read_end, 64)
            for signum in got:
                if signum == 0:
                    return
                if signum in _STOP_SIGNALS:
                    _on_signal(signum, None)
            if not got:
                return
    except OSError:
        pass
    finally:
        try:
            os.close(read_end)
        except OSError:
            pass


def _forget_wake_in_child() -> None:
    """A forked worker neither writes to its parent's watch pipe nor holds it open."""
    if _WAKE:
        try:
            signal.set_wakeup_fd(-1)
        except ValueError:
            pass
        for fd in _WAKE:
            try:
                os.close(fd)
            except OSError:
                pass
        _WAKE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_wake_in_child)


def _install_signal_handlers() -> dict:
    """LASTZ dies on these signals and leaves its output behind; fastz cleans up, at
    once (``_watch_signals``).  Only the main thread may set handlers; elsewhere
    nothing is changed."""
    _MAIN_PID[0] = os.getpid()
    old = {}
    try:
        for sig in _STOP_SIGNALS:
            if signal.getsignal(sig) is signal.SIG_IGN:
                continue              # e.g. SIGHUP under nohup, SIGINT in a background job
            old[sig] = signal.signal(sig, _on_signal)
    except ValueError:               # not the main thread
        return old
    if old and not _WAKE:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        try:
            old["wake"] = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        except ValueError:
            os.close(read_end)
            os.close(write_end)
            return old
        _WAKE[:] = [read_end, write_end]
        threading.Thread(target=_watch_signals, args=(read_end,), daemon=True,
                         name="fastz-signals").start()
    return old


def _restore_signal_handlers(old: dict) -> None:
    wake = old.pop("wake", None)
    if wake is not None and _WAKE:
        read_end, write_end = _WAKE
        _WAKE.clear()
        try:
            signal.set_wakeup_fd(wake)
        except ValueError:
            pass
        os.write(write_end, b"\0")             # (the watcher reads it and ends)
        os.close(write_end)                    # (the read end is the watcher's to close)
    for sig, handler in old.items():
        try:
            signal.signal(sig, handler)
        except (ValueError, TypeError):
            pass


class ClosedPipe(Exception):
    """stdout's reader went away during a run (a BrokenPipeError that click must not see)."""


#: Set once an alignment run has finished: nothing is left for the interpreter's
#: teardown to do, and it took 0.45-0.55 s of a 6 s run (dmel2R_vs_dpse_contigs:
#: everything after the last line of output).
_QUICK_EXIT = False


def _exit(code: int) -> None:
    """Leave the process with ``code``: after an alignment run, at once (``os._exit``)
    once stdout and stderr are flushed; otherwise through ``sys.exit``."""
    if not _QUICK_EXIT:
        sys.exit(code)
    try:
        sys.stdout.flush()
    except BrokenPipeError:                       # the reader went away at the very end
        code = 141
    except OSError as exc:
        print(f"{PROG}: {exc.strerror or _one_line(exc)} (stdout)", file=sys.stderr)
        code = 1
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split("\n")).rstrip() or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Run the command line.  With ``argv`` given (tests) the exit status is returned;
    with ``argv=None`` (console script, ``python -m fastz``) the process exits with it.

    Every failure is one line ``fastz: <message>`` on stderr and a non-zero status: 1
    for an error, 128 + n for signal n (130 SIGINT, 143 SIGTERM), 141 for a closed
    pipe.  Only a bug in fastz shows a traceback.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    handlers = _install_signal_handlers()
    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except KeyboardInterrupt:                      # (no handler: not the main thread)
        print(f"{PROG}: stopped by SIGINT; no output was completed", file=sys.stderr)
        code = 130
    except FastzError as exc:
        print(f"{PROG}: {_one_line(exc)}", file=sys.stderr)
        code = 1
    except MemoryError:
        print(f"{PROG}: out of memory", file=sys.stderr)
        code = 1
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code
    except click.exceptions.Abort:
        print(f"{PROG}: aborted", file=sys.stderr)
        code = 1
    except (BrokenPipeError, ClosedPipe):         # e.g. `fastz ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())     # (no second error when Python flushes)
        code = 141
    except OSError as exc:
        # the environment failed under us (I/O error, disk full): say so in one line
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"{PROG}: {exc.strerror or _one_line(exc)}{where}", file=sys.stderr)
        code = 1
    finally:
        _restore_signal_handlers(handlers)
    if argv is None:
        _exit(code)
    return code


def main_D(argv: list[str] | None = None) -> int:
    """``fastz_D``: the command line with double scores, fastz's ``lastz_D``
    (fractional entropy-adjusted HSP scores, thresholds and drops; scores printed as
    lastz_D prints them)."""
    with score_type("D"):
        return main(argv)
