"""Errors of the cluster backend, each an error of the command that asked for it (one line on
stderr, exit code 2, no result): the cluster extra is not installed, the scheduler cannot be
reached, no worker joined it, a worker cannot run this checkout's code, or every worker left
mid-sweep and none came back in time."""

from __future__ import annotations


class ClusterError(Exception):
    """`--dask ADDRESS` cannot be used; the message says why and what to do."""
