"""``bilevel export-library``: regenerate the instance library (``.mps``, ``.lp``, name maps and the
manifest) in ``models/``; see :mod:`bilevel.library`."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import library_defaults as defaults
from .cli import SUBCOMMANDS
from .datasets import check_split_sizes, load_builtin
from .errors import InputError
from .help_format import DefaultsHelpFormatter, has_empty_item, integer, integer_list, path_text, real, shown
from .option_checks import nonempty_path
from .validation import check_mip_gap, check_writable_folder


def _int_list(text: str) -> list[int]:
    values = integer_list(text)  # "5,,10" was read as "5,10" without a word (comma_items)
    if not values or min(values) < 2:
        raise argparse.ArgumentTypeError(f"sizes must be integers >= 2, got {shown(text)}")
    return values


def add_parser(sub) -> None:
    """Register ``export-library`` on the ``bilevel`` subparsers ``sub``."""
    p = sub.add_parser(
        "export-library",
        help=SUBCOMMANDS["export-library"][1],
        description="Write the fixed instance library: cancer and diabetes, optimistic and pessimistic "
        "(epsilon 0 and 0.2, all validation labels flipped), |T| = |V| in "
        f"{', '.join(map(str, defaults.SIZES))}, split seed {defaults.SEED}. Each instance becomes <id>.mps (fixed "
        "MPS, short names), <id>.lp (readable names) and <id>.names.csv (short -> readable names); instances "
        f"with |T| = |V| <= {defaults.SMALL_MAX} go into OUT (committed), larger ones into OUT/large (not "
        "committed). Each is solved with HiGHS and OUT/manifest.csv records sizes, checksums, status, objective, "
        "best bound, gap and time; rows of instances not regenerated are kept.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--out", default="models", type=path_text, help="library folder (manifest.csv goes there)")
    # a str default, which argparse passes through _int_list: --help shows it as typed, not as a Python list
    p.add_argument("--sizes", type=_int_list, default=",".join(map(str, defaults.SIZES)),
                   help="comma-separated |T| = |V| sizes to regenerate")
    p.add_argument("--max-size", type=integer, default=None, help="regenerate only sizes up to this")
    p.add_argument("--only-small", action="store_true",
                   help=f"regenerate only the committed instances (|T| = |V| <= {defaults.SMALL_MAX})")
    p.add_argument("--data", default=",".join(defaults.DATASETS), help="comma-separated built-in data sets")
    p.add_argument("--only", action="append", default=[], metavar="PATTERN",
                   help="regenerate only instance ids matching this shell pattern (repeatable)")
    # default None, so that giving one with --no-solve (where it would change nothing) is refused; run() fills in
    # defaults.TIME_LIMIT and defaults.MIP_GAP otherwise
    p.add_argument("--time-limit", type=real, default=None,
                   help=f"HiGHS seconds per instance (default: {defaults.TIME_LIMIT:g}; refused with --no-solve)")
    p.add_argument("--mip-gap", type=real, default=None,
                   help=f"relative MIP gap of the HiGHS solves (default: {defaults.MIP_GAP:g}; refused with "
                        "--no-solve)")
    p.add_argument("--no-solve", action="store_true",
                   help="write the files only; the HiGHS fields of regenerated rows are left empty")
    p.set_defaults(func=run)


def _check_sizes_fit(specs) -> None:
    """Refuse (InputError naming ``--sizes``) a size that a data set of ``specs`` cannot supply: build_instance's
    split named its arguments ("n_train + n_val = 600 exceeds ..."), after the instances of the smaller sizes had
    been written and solved."""
    rows = {}
    for spec in specs:
        if spec.data not in rows:
            rows[spec.data] = len(load_builtin(spec.data).y)
        try:
            check_split_sizes(rows[spec.data], {"|T|": spec.n_train, "|V|": spec.n_val}, spec.test_fraction)
        except InputError as exc:
            raise InputError(f"--sizes {spec.n_train} on data set {spec.data!r} (test fraction "
                             f"{spec.test_fraction:g}): {exc}; --max-size leaves the larger sizes out") from None


def run(args) -> int:
    """Regenerate the selected instances; returns 0, or 1 when a HiGHS solution failed verification.
    Raises InputError for bad options, also ``--time-limit`` or ``--mip-gap`` with ``--no-solve``, which solves
    nothing and ignored them without a word."""
    given = [flag for flag, value in (("--time-limit", args.time_limit), ("--mip-gap", args.mip_gap))
             if value is not None]
    if args.no_solve and given:
        verb = "applies" if len(given) == 1 else "apply"
        raise InputError(f"{' and '.join(given)} {verb} only to the HiGHS solves, and --no-solve writes the files "
                         "without solving them; drop it or leave out --no-solve")
    if args.time_limit is None:
        args.time_limit = defaults.TIME_LIMIT
    if args.mip_gap is None:
        args.mip_gap = defaults.MIP_GAP
    if not args.time_limit > 0:
        raise InputError(f"--time-limit must be positive seconds; got {args.time_limit}")
    check_mip_gap(args.mip_gap, "--mip-gap")
    sizes = list(dict.fromkeys(args.sizes))  # a repeated size (or data set) would write and solve it twice
    if args.max_size is not None:
        sizes = [n for n in sizes if n <= args.max_size]
    if args.only_small:
        sizes = [n for n in sizes if n <= defaults.SMALL_MAX]
    if not sizes:
        raise InputError("no sizes left to regenerate (check --sizes, --max-size, --only-small)")
    datasets = list(dict.fromkeys(d.strip() for d in args.data.split(",") if d.strip()))
    if not datasets:
        raise InputError(f"--data names no data set; got {args.data!r} (built-in: {', '.join(defaults.DATASETS)})")
    if has_empty_item(args.data):  # "cancer,,diabetes": a typo, read without a word
        raise InputError(f"--data has an empty item: {args.data!r}")
    unknown = [d for d in datasets if d not in defaults.DATASETS]
    if unknown:
        raise InputError(f"--data: unknown data set {', '.join(unknown)}; the library is built from "
                         f"{', '.join(defaults.DATASETS)}")
    from . import library  # Pyomo and HiGHS: loaded only to write the library, not for --help

    specs = library.library_specs(sizes=sizes, datasets=datasets)
    if args.only:
        import fnmatch

        specs = [s for s in specs if any(fnmatch.fnmatch(s.id, pat) for pat in args.only)]
        if not specs:
            raise InputError(f"no library instance matches {args.only}")
    _check_sizes_fit(specs)
    # Path("") is the working directory: the whole library (and large/) was written there
    nonempty_path("a folder name, or leave --out out (models)")(args.out, "--out")
    out = Path(args.out)
    check_writable_folder(out, "--out")
    t0 = time.perf_counter()
    rows = library.export_library(out, specs, time_limit=args.time_limit, mip_gap=args.mip_gap,
                                  solve=not args.no_solve)
    done = {s.id for s in specs}
    bad = [r["id"] for r in rows if r["id"] in done and r.get("verified") is False]
    print(f"wrote {len(specs)} instances and {out / 'manifest.csv'} ({len(rows)} rows) in "
          f"{time.perf_counter() - t0:.1f} s")
    if bad:
        # on stderr in one line, like the other commands' failures (it went to stdout with exit code 1)
        print(f"bilevel export-library: error: NOT verified: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0
