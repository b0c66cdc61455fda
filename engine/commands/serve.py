"""``cep serve``: start the app (the same as ``make run``).

The app listens on loopback (127.0.0.1) unless ``--host`` names another address; then a
warning on stderr says what that exposes (the app has no authentication). Files on the
server are offered only from ``--data-dir DIR`` (default: none, and the Run page hides the
option). The app's runs get ``--time-limit`` seconds, ``--max-memory`` of resident memory
and at most ``--run-slots`` of them run at once (the others wait in a queue).

``--spark-master URL`` (a standalone, YARN or Kubernetes master) or ``--spark-remote
sc://HOST:PORT`` (a Spark Connect server) makes the Run page's Spark option run there; the
address is fixed at start-up (never typed in the page) and reaches the app as
``CEP_SPARK_MASTER``, which ``engine.spark.session.get_spark`` reads.

The settings reach the app through environment variables (``ENV_*`` below; ``app.limits``
reads them). Streamlit is started from the repository root, where it reads
``.streamlit/config.toml``, and gets the security settings as flags too, so they hold from
any working directory.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app" / "Home.py"

ENV_DATA_DIR = "CEP_DATA_DIR"
ENV_TIME_LIMIT = "CEP_RUN_TIME_LIMIT"
ENV_MAX_MEMORY = "CEP_MAX_MEMORY"
ENV_RUN_SLOTS = "CEP_RUN_SLOTS"
ENV_SPARK_MASTER = "CEP_SPARK_MASTER"  # engine.spark.session.default_master

DEFAULT_HOST = "127.0.0.1"
DEFAULT_TIME_LIMIT = 60.0
DEFAULT_RUN_SLOTS = 2
UPLOAD_MAX_MB = 100  # app.limits.UPLOAD_MAX_BYTES in MiB (Streamlit's server.maxUploadSize)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("serve", help="start the app (same as `make run`); loopback only unless --host says otherwise")
    p.add_argument("--port", type=int, default=int(os.environ.get("CEP_PORT", "8501")))
    p.add_argument("--host", default=DEFAULT_HOST,
                   help="address to listen on (default 127.0.0.1: this machine only). The app has no "
                        "authentication: any other address lets whoever reaches the port use it")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help="offer the files under DIR on the Run page (default: none; only uploads and samples)")
    p.add_argument("--time-limit", default=str(DEFAULT_TIME_LIMIT), metavar="SECONDS",
                   help=f"stop an app run after this many seconds (default {DEFAULT_TIME_LIMIT:g})")
    p.add_argument("--max-memory", default=None, metavar="SIZE",
                   help="stop an app run when the server's resident memory passes SIZE "
                        "(2GB, 800MB, 50%%, off; default 2 GB or half the machine's memory)")
    p.add_argument("--run-slots", default=str(DEFAULT_RUN_SLOTS), metavar="N",
                   help=f"at most N app runs at once; the others wait (default {DEFAULT_RUN_SLOTS})")
    p.add_argument("--spark-master", default=None, metavar="URL",
                   help="the Run page's Spark option runs on this cluster: spark://HOST:PORT, yarn, "
                        "k8s://https://HOST:PORT (default: Spark inside the app, local[*])")
    p.add_argument("--spark-remote", default=None, metavar="sc://HOST:PORT",
                   help="the Run page's Spark option runs on this Spark Connect server")
    return p


def spark_master(args: argparse.Namespace) -> str | None:
    """The cluster or Spark Connect address the app's Spark runs on (None: unchanged)."""
    from engine.commands.arguments import CommandError

    master, remote = getattr(args, "spark_master", None), getattr(args, "spark_remote", None)
    if master is not None and remote is not None:
        raise CommandError("give --spark-master or --spark-remote, not both")
    if remote is not None:
        if not remote.strip().lower().startswith("sc://"):
            raise CommandError(f"--spark-remote takes a Spark Connect address sc://HOST:PORT, not {remote!r}")
        return remote.strip()
    if master is not None:
        if not master.strip():
            raise CommandError("--spark-master is empty")
        if master.strip().lower().startswith("sc://"):
            raise CommandError("--spark-master takes a master URL; give a Spark Connect address to --spark-remote")
        return master.strip()
    return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int, data_dir: str | None) -> str | None:
    """What listening on ``host`` exposes, or None for a loopback address."""
    if _is_loopback(host):
        return None
    files = (f"the files under {data_dir}" if data_dir else "no server files (no --data-dir)")
    return (f"WARNING: the app listens on {host}:{port}, not only on this machine. It has no authentication: "
            f"anyone who can reach this port can run patterns (using this machine's CPU and memory), "
            f"upload files and read {files}. Use --host 127.0.0.1 (the default) unless that is what you want.")


def _positive_seconds(text: str) -> float:
    from engine.commands.arguments import CommandError

    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"--time-limit must be a number of seconds, not {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise CommandError(f"--time-limit must be a positive finite number of seconds, not {text!r}")
    return value


def _slots(text: str) -> int:
    from engine.commands.arguments import CommandError

    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"--run-slots must be a whole number, not {text!r}") from None
    if not 1 <= value <= 64:
        raise CommandError(f"--run-slots must be between 1 and 64, not {value}")
    return value


def launch_settings(args: argparse.Namespace) -> tuple[list[str], dict[str, str], Path]:
    """(command, environment, working directory) that start the app for ``args``; bad
    values raise ``CommandError``."""
    from engine.commands.arguments import CommandError
    from engine.memory import parse_size

    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be between 1 and 65535, not {args.port}")
    env = dict(os.environ)
    for name in (ENV_DATA_DIR, ENV_TIME_LIMIT, ENV_MAX_MEMORY, ENV_RUN_SLOTS):
        env.pop(name, None)
    if args.data_dir is not None:
        folder = Path(args.data_dir).expanduser()
        if not folder.is_dir():
            raise CommandError(f"--data-dir {args.data_dir}: not a directory")
        env[ENV_DATA_DIR] = str(folder.resolve())
    env[ENV_TIME_LIMIT] = repr(_positive_seconds(args.time_limit))
    if args.max_memory is not None:
        try:
            limit = parse_size(args.max_memory)
        except ValueError as err:
            raise CommandError(f"--max-memory: {err}") from None
        env[ENV_MAX_MEMORY] = "off" if limit is None else str(limit)
    env[ENV_RUN_SLOTS] = str(_slots(args.run_slots))
    master = spark_master(args)
    if master is not None:
        env[ENV_SPARK_MASTER] = master
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP),
           "--server.address", args.host, "--server.port", str(args.port),
           "--server.headless", "true", "--server.enableXsrfProtection", "true",
           "--server.enableCORS", "true", "--server.maxUploadSize", str(UPLOAD_MAX_MB),
           "--browser.gatherUsageStats", "false", "--client.toolbarMode", "viewer",
           "--runner.postScriptGC", "false"]
    return cmd, env, ROOT


def run(args: argparse.Namespace) -> int:
    cmd, env, cwd = launch_settings(args)
    warning = exposure_warning(args.host, args.port, env.get(ENV_DATA_DIR))
    if warning:
        print(warning, file=sys.stderr)
    else:
        print(f"cep serve: http://{args.host}:{args.port} (this machine only)", file=sys.stderr)
    if env.get(ENV_SPARK_MASTER):
        print(f"cep serve: Spark runs on {env[ENV_SPARK_MASTER]}", file=sys.stderr)
    try:
        return subprocess.call(cmd, env=env, cwd=cwd)
    except KeyboardInterrupt:
        return 0
