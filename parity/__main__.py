"""``python -m parity``: run every spec in pyiml and in R's iml, compare, write parity/REPORT.md."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .harness import load_specs, run_spec, write_report

DOCS_PREFACE = (
    "<!-- Written by `python -m parity` (`make parity`): a copy of parity/REPORT.md. Do not edit. -->\n"
    "Every spec of `parity/specs/` run in pyiml and in CRAN iml (through `r_bridge`), compared value by "
    "value. Regenerate with `make parity`.\n\n"
    "Beyond these specs, `python -m parity.fuzz --cases N` draws random cases (random data with numerical, "
    "integer, categorical, ordered and string features, a random Python model or scikit-learn pipeline that "
    "both sides call, random arguments and follow-up calls of every method) and compares them the same way; "
    "`tests/test_parity_fuzz.py` runs a fixed set of them in `make test`, and `tests/upstream/` states iml's "
    "own testthat expectations with the numbers from iml run live.\n\n"
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parity", description=__doc__)
    ap.add_argument("-k", dest="pattern", default=None, help="only specs whose name contains this text")
    ap.add_argument("--report", default=None,
                    help="where to write the report (default: parity/REPORT.md on full runs; none with -k)")
    ap.add_argument("--docs", default=str(Path(__file__).parent.parent / "docs" / "parity.md"),
                    help="copy of the report for docs/ (written on full runs only, i.e. without -k)")
    args = ap.parse_args(argv)
    specs = [s for s in load_specs() if not args.pattern or args.pattern in s.name]
    results = []
    for s in specs:
        r = run_spec(s)
        results.append(r)
        status = "pass" if r.passed else "FAIL"
        print(f"{status:4}  {s.name:45} max|diff| {r.max_abs_diff:.3g}  (scale {r.scale:.3g}, tol {s.tolerance:g})"
              + (f"  {r.detail}" if r.detail else ""))
    report = args.report or (None if args.pattern else str(Path(__file__).parent / "REPORT.md"))
    if report:
        write_report(results, Path(report))
    if not args.pattern and args.docs and report:
        title, _, rest = Path(report).read_text().partition("\n")
        Path(args.docs).write_text(f"{title}\n\n{DOCS_PREFACE}{rest.lstrip()}")
    n_fail = sum(not r.passed for r in results)
    print(f"{len(results) - n_fail} passed, {n_fail} failed" + (f"; report: {report}" if report else ""))
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
