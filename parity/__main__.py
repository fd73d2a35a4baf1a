"""``python -m parity``: run every spec in pyiml and in R's iml, compare, write parity/REPORT.md."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .harness import load_specs, run_spec, write_report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parity", description=__doc__)
    ap.add_argument("-k", dest="pattern", default=None, help="only specs whose name contains this text")
    ap.add_argument("--report", default=str(Path(__file__).parent / "REPORT.md"), help="where to write the report")
    args = ap.parse_args(argv)
    specs = [s for s in load_specs() if not args.pattern or args.pattern in s.name]
    results = []
    for s in specs:
        r = run_spec(s)
        results.append(r)
        status = "pass" if r.passed else "FAIL"
        print(f"{status:4}  {s.name:45} max|diff| {r.max_abs_diff:.3g}  (scale {r.scale:.3g}, tol {s.tolerance:g})"
              + (f"  {r.detail}" if r.detail else ""))
    write_report(results, Path(args.report))
    n_fail = sum(not r.passed for r in results)
    print(f"{len(results) - n_fail} passed, {n_fail} failed; report: {args.report}")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
