"""Errors of the cluster backend, each a usage error of the command that asked for it (one
line on stderr, exit code 2): the cluster extra is not installed, the scheduler cannot be
reached, no worker joined it, or a worker cannot run this checkout's code."""

from __future__ import annotations


class ClusterError(Exception):
    """`--dask ADDRESS` cannot be used; the message says why and what to do."""
