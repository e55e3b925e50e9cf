"""The Dask side shared by tools/dask_encode.py and tools/dask_embed.py: the
cluster options, a client on them, and a worker plugin that builds one phasor
object per worker (a model, or phasor embed's sequence) before any task runs.

phasor brings no scheduler of its own: --scheduler ADDRESS joins a running
cluster (`dask scheduler` + `dask worker ADDRESS` on each machine, with
PYTHONPATH reaching the phasor module there); without it a LocalCluster of
--workers processes runs on this machine.
"""
import argparse
import contextlib
import itertools
import os
import re
import signal
import stat
import sys
import time

import cloudpickle
from distributed import Client, LocalCluster, WorkerPlugin, get_worker, wait

# Tasks and the plugin below travel to the workers by value, so a worker needs
# the phasor module on its PYTHONPATH but not this file.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

PLUGIN_NAME = "phasor-state"


class ArgumentParser(argparse.ArgumentParser):
    """argparse with phasor's one-line usage errors: `phasor: error: ...`, exit 2."""

    def error(self, message):
        self.exit(2, f"phasor: error: {message}\n")


def fail(message):
    """A data error as the CLI reports one: `phasor: error: ...` on stderr; returns exit code 1."""
    print(f"phasor: error: {message}", file=sys.stderr)
    return 1


_SIZE = re.compile(r"[ \t]*(-?)([0-9]+)([kKmMgG]?)[ \t]*")
_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text):
    """A size as the CLI reads one (tools/sizes.cc ParseSize): an integer with an optional
    sign and suffix K, M or G (1024, 1024^2, 1024^3, either case): "100K" -> 102400.
    For argparse's type=: ValueError (argparse.ArgumentTypeError) with the CLI's words."""
    m = _SIZE.fullmatch(text)
    if not m:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not a size (e.g. 4096, 16K, 1M)")
    value = int(m.group(2)) * _SUFFIX[m.group(3).lower()]
    if value >= 2**63:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is too large")
    return -value if m.group(1) else value


def check_output_file(parser, option, path, ext):
    """Usage error unless path ends in ext; data error (SystemExit 1) unless its directory
    exists and is writable: checked before any work, as the CLI does."""
    if not str(path).endswith(ext):
        parser.error(f"{option} must end in {ext}, got '{path}'")
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        reason = ("Is a directory" if os.path.isdir(path) else
                  "No such file or directory" if not os.path.isdir(parent) else "Permission denied")
        raise SystemExit(fail(f"cannot write {path}: {reason}"))


def _same_file(a, b):
    if os.path.exists(a) and os.path.exists(b):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def check_distinct_paths(parser, outputs, inputs):
    """Usage error, as the CLI's (commands/option_checks.h), if two outputs name one
    file or an output names an input; outputs and inputs: (option, path) pairs, path None when
    not given. Links and ".." are resolved; existing files compare by inode."""
    for i, (option, path) in enumerate(outputs):
        if path is None:
            continue
        for other, other_path in outputs[i + 1:]:
            if other_path is not None and _same_file(path, other_path):
                parser.error(f"{option} and {other} name the same file ({path})")
        for other, other_path in inputs:
            if other_path is not None and _same_file(path, other_path):
                parser.error(f"{option} names the input of {other} ({path})")


_temporary_names = itertools.count()


@contextlib.contextmanager
def output_file(path):
    """A file that appears complete under path or not at all, as every file the CLI writes
    (engine/output_file.h): yields the name of a temporary file beside path to write; when the
    block ends without an exception it is synced and renamed over path (a symbolic link keeps
    its link; a file replaced keeps its permission bits). On any exception, KeyboardInterrupt
    and the signals of run_main among them, it is removed and an earlier file of that name is
    left as it was."""
    path = os.fspath(path)
    target = os.path.realpath(path) if os.path.islink(path) else path
    folder, name = os.path.split(os.path.abspath(target))
    temp = os.path.join(folder, f".{name[:180]}.{os.getpid()}-{next(_temporary_names)}.partial")
    try:
        yield temp
        with open(temp, "rb+") as f:
            os.fsync(f.fileno())
        if os.path.exists(target):
            os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived (run_main): unwinds like KeyboardInterrupt."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum, _frame):
    raise Interrupted(signum)


def run_main(main):
    """Runs main() -> exit code with SIGINT, SIGTERM and SIGHUP (each unless ignored, as under
    nohup) raised as Interrupted, so that output_file removes what is under way; then ends the
    process by that signal (exit status 128 + n in a shell), as the CLI does."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _interrupt)
    try:
        return main()
    except Interrupted as e:
        signal.signal(e.signum, signal.SIG_DFL)
        os.kill(os.getpid(), e.signum)
        raise  # not reached: the signal ends the process


def clear_previous_run(out_dir, pattern):
    """Removes the files of an earlier run (names matching the glob pattern, and index.json)
    from out_dir, and temporary files an interrupted one left, so that none is left beside
    this run's."""
    leftovers = [p for p in out_dir.glob(".*.partial") if p.name[1:].startswith(pattern[:-5])]
    for old in list(out_dir.glob(pattern)) + [out_dir / "index.json"] + leftovers:
        if old.is_file():
            old.unlink()


def prepare_out_dir(out_dir, given, pattern):
    """Creates out_dir and clears an earlier run's files (clear_previous_run); None, or 1
    after an error line naming --out-dir as given."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        clear_previous_run(out_dir, pattern)
    except OSError as e:
        return fail(f"--out-dir {given}: {e}")
    return None


def run_on_cluster(args, make, make_args, work):
    """Connects (add_cluster_arguments' options), builds make(*make_args) on every worker
    (install_state), runs work(client, workers), which submits the tasks and returns their
    gathered results, and closes the client and any LocalCluster. Returns (results,
    workers, threads, seconds), or 1 after one error line: phasor.Error from a worker, a
    timeout, a ValueError of work's, or a task's result {"error": ...}."""
    t0 = time.perf_counter()
    client, cluster, threads = connect(args)
    try:
        install_state(client, make, make_args, threads)
        workers = len(client.scheduler_info()["workers"])
        results = work(client, workers)
    except Exception as e:  # noqa: BLE001 - phasor.Error from a worker, a timeout, ...
        return fail(e if isinstance(e, ValueError) else f"{type(e).__name__}: {e}")
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    seconds = time.perf_counter() - t0
    for r in results:
        if "error" in r:
            return fail(r["error"])
    return results, workers, threads, seconds


def add_cluster_arguments(parser):
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a "
                             "LocalCluster)")
    parser.add_argument("--workers", type=int, default=2,
                        help="LocalCluster: worker processes (default 2)")
    parser.add_argument("--in-process", action="store_true",
                        help="LocalCluster: workers as threads of this process, not processes")
    parser.add_argument("--threads", type=int, default=0,
                        help="phasor compute threads per worker (default: the cores of the "
                             "machine divided among its LocalCluster workers; 0 with "
                             "--scheduler: all cores of each worker's machine)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds to wait for the cluster and for all tasks (default 600)")


def connect(args):
    """(client, cluster or None, compute threads per worker) for the parsed arguments."""
    if args.workers < 1:
        raise SystemExit("--workers must be >= 1")
    if args.threads < 0:
        raise SystemExit("--threads must be >= 0")
    if args.scheduler:
        return Client(args.scheduler, timeout=args.timeout), None, args.threads
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.workers)
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                           processes=not args.in_process, dashboard_address=None)
    return Client(cluster, timeout=args.timeout), cluster, threads


class PhasorState(WorkerPlugin):
    """Builds make(*args) once on every worker (at registration, or when a worker
    joins later) after setting phasor's thread count; tasks read it with state()."""

    name = PLUGIN_NAME

    def __init__(self, make, args, threads):
        self.make, self.args, self.threads = make, args, threads
        self.value = None

    def setup(self, worker):
        import phasor
        phasor.set_num_threads(self.threads)
        self.value = self.make(*self.args)


def install_state(client, make, args, threads):
    """Registers PhasorState(make, args, threads) on every worker of the client."""
    plugin = PhasorState(make, args, threads)
    register = getattr(client, "register_plugin", None) or client.register_worker_plugin
    register(plugin, name=PLUGIN_NAME)


def state():
    """In a task: the object PhasorState built on this worker."""
    return get_worker().plugins[PLUGIN_NAME].value


def gather(client, futures, timeout):
    """The results of futures, in order; TimeoutError if they take longer than timeout."""
    wait(futures, timeout=timeout)
    return client.gather(futures)
