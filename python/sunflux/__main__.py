"""Command line: ``python -m sunflux demo`` (the main job, offline), ``python -m sunflux serve`` and
``python -m sunflux --version``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from sunflux import _core
from sunflux._errors import SunfluxError
from sunflux._local import LIMIT_PROFILES, LocalService, RateLimits


def _demo(args: argparse.Namespace) -> int:
    from sunflux._demo import run_demo

    return run_demo(out=sys.stdout)


def _serve(args: argparse.Namespace) -> int:
    try:
        rates = None if args.requests_per_hour is None else RateLimits(requests=args.requests_per_hour, window=3600.0)
        svc = LocalService(port=args.port, rate_limits=rates, api_key=args.api_key, limits=args.limits)
    except SunfluxError as error:
        # A usage problem (a port in use, a key of the wrong length): one line, as argparse does.
        print(f"python -m sunflux serve: error: {_one_line(error)}", file=sys.stderr)
        return 2
    with svc:
        print(f"sunflux embedded service listening on {svc.base_url}", flush=True)
        print(f"API key: {svc.api_key}", flush=True)
        print(f"try: curl -H 'X-Api-Key: {svc.api_key}' {svc.base_url}/api/local/v1/status.json", flush=True)
        print("press Ctrl-C to stop", flush=True)
        try:
            while svc.running:
                time.sleep(0.2)
        except KeyboardInterrupt:
            print("stopping", flush=True)
    return 0


def _one_line(error: SunfluxError) -> str:
    return " ".join(str(error).split())


#: The help text (plain text: no reStructuredText markup in a terminal).
DESCRIPTION = "sunflux command line: 'demo' runs the tour against the embedded service (offline), 'serve' runs the embedded service."


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sunflux", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"sunflux {_core.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run the tour against the embedded service (no key, no network)")
    demo.set_defaults(run=_demo)
    serve = commands.add_parser("serve", help="run the embedded service in the foreground")
    serve.add_argument("--port", type=int, default=8080, help="port on 127.0.0.1 (0 picks a free one)")
    serve.add_argument("--api-key", default=None, help="the 40-character key to accept (random by default)")
    serve.add_argument("--limits", choices=LIMIT_PROFILES, default="none",
                       help=f"'none' (default, as LocalService): no request limits; 'spec': the spec's ({_core.KEY_REQUESTS_PER_HOUR} requests per key per hour, the climate intervals and quotas)")
    serve.add_argument("--requests-per-hour", type=int, default=None, help="a per-key limit enforced whatever --limits says")
    serve.set_defaults(run=_serve)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
