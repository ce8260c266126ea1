"""The command-line flag every sweeping command shares: `--dask ADDRESS`."""

from __future__ import annotations

import argparse

from model_checks.executor.backends import Backend, backend_for

DASK_HELP = ("send the tasks to the Dask scheduler at ADDRESS (e.g. tcp://127.0.0.1:8786) "
             "instead of local processes; needs the cluster extra, pip install "
             "'paired-caches[cluster]'")


def add_dask_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dask", metavar="ADDRESS", default=None, help=DASK_HELP)


def backend_from(args: argparse.Namespace, processes: int) -> Backend:
    """`args.dask`'s cluster (raises `ClusterError`, a usage error) or `processes` local
    processes."""
    return backend_for(getattr(args, "dask", None), processes)
