"""`python -m tools.demo`: write the bundled demo, or with `--full-scale` the benchmarks'
national-size GIAS file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tools.demo.admissions import write_admissions
from tools.demo.builder import make_schools
from tools.demo.codepoint import load_codepoint, write_codepoint
from tools.demo.config import DEMO, EXTRACT_DATE, FULL
from tools.demo.finance import write_finance
from tools.demo.full_scale import full_scale_authorities
from tools.demo.gias import write_gias, write_gias_csv
from tools.demo.ks2 import write_ks2_results
from tools.demo.ks4 import write_ks4_info, write_ks4_results
from tools.demo.ks5 import write_ks5
from tools.demo.manifest import write_manifest
from tools.demo.ofsted import write_ofsted
from tools.demo.output import Output
from tools.demo.places import LOCAL_AUTHORITIES
from tools.demo.real_names import RealNames


def generate(
    codepoint_dir: Path, real_names: RealNames, out: Path, log: Callable[[str], None] = print
) -> list[Output]:
    """The bundled demo: every dataset, and the manifest that describes them."""
    out.mkdir(parents=True, exist_ok=True)
    log(f"reading Code-Point Open from {codepoint_dir}")
    cp = load_codepoint(codepoint_dir, LOCAL_AUTHORITIES)
    schools = make_schools(cp, LOCAL_AUTHORITIES, DEMO, real_names)
    log(f"{len(schools)} synthetic establishments")
    outputs = [
        write_gias(out, schools),
        write_codepoint(out, cp, schools),
        write_ks4_info(out, schools),
        write_ks4_results(out, schools),
        write_ks2_results(out, schools),
        *write_ks5(out, schools),
        *write_ofsted(out, schools),
        write_admissions(out, schools),
        write_finance(out, schools),
    ]
    write_manifest(out, outputs)
    for o in outputs:
        log(f"  {o.path.relative_to(out).as_posix():<32} {o.rows:>8} rows")
    return outputs


def generate_full_scale(
    codepoint_dir: Path, real_names: RealNames, out: Path, log: Callable[[str], None] = print
) -> Path:
    """A national-size synthetic GIAS file (edubasealldataYYYYMMDD.csv) for benchmarks."""
    log(f"counting English authorities in {codepoint_dir}")
    authorities = full_scale_authorities(codepoint_dir)
    log(f"{len(authorities)} local authorities; reading Code-Point Open")
    codepoint = load_codepoint(codepoint_dir, authorities)
    schools = make_schools(codepoint, authorities, FULL, real_names)
    path = out / f"edubasealldata{EXTRACT_DATE:%Y%m%d}.csv"
    write_gias_csv(path, schools)
    open_count = sum(1 for s in schools if s.is_open)
    log(f"{len(schools)} synthetic establishments ({open_count} open) -> {path}")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.demo",
        description="Generate the bundled SYNTHETIC demo dataset, in the publishers' file formats.",
    )
    parser.add_argument(
        "--codepoint",
        type=Path,
        required=True,
        help="directory of Code-Point Open <area>.csv.gz files",
    )
    parser.add_argument(
        "--real-names",
        type=Path,
        required=True,
        help="directory of publishers' CSV files whose school names no demo school may carry "
        "(../shared/data/performance_tables)",
    )
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument(
        "--full-scale",
        action="store_true",
        help="benchmarks: write only a national-size GIAS file (~65,000 establishments, "
        "~27,000 open) as <out>/edubasealldataYYYYMMDD.csv instead of the bundled demo",
    )
    args = parser.parse_args(argv)
    real_names = RealNames.read(args.real_names)
    if args.full_scale:
        generate_full_scale(args.codepoint, real_names, args.out)
    else:
        generate(args.codepoint, real_names, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
