"""``python -m parity``: run every spec in pyiml and in R's iml, compare, write parity/REPORT.md.

``--record FILE`` also writes a recording of R's side; ``--replay FILE`` runs pyiml's side
against such a recording, without R (see :mod:`parity.replay`).
"""
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
    "`python -m parity.fuzz --chains` runs 2-4 random calls one after the other under one `RRandom` and one "
    "`set.seed`, so each method must also leave R's session generator where iml leaves it; with "
    "`--r-models` the model is an R model fitted to the case's data (`lm`, logistic `glm`, `rpart`, "
    "`randomForest`, `ranger`, `e1071::svm`, `nnet::multinom`) that pyiml calls through `r_bridge.RModel` "
    "and iml directly. "
    "`tests/test_parity_fuzz.py` runs a fixed set of each in `make test`, and `tests/upstream/` states iml's "
    "own testthat expectations with the numbers from iml run live.\n\n"
)


def _line(r) -> str:
    status = "pass" if r.passed else "FAIL"
    return (f"{status:4}  {r.spec.name:45} max|diff| {r.max_abs_diff:.3g}  (scale {r.scale:.3g}, tol "
            f"{r.spec.tolerance:g})")


def _replay(args) -> int:
    import numpy as np
    import pandas as pd

    from .replay import recorded_versions, replay

    rec = recorded_versions(args.replay)
    print(f"replaying {args.replay} (recorded with numpy {rec['numpy']}, pandas {rec['pandas']}) on numpy "
          f"{np.__version__}, pandas {pd.__version__}")
    results = replay(args.replay, [s for s in load_specs() if not args.pattern or args.pattern in s.name])
    for r in results:
        same = "bit-identical to the recording" if r.identical else "not bit-identical to the recording"
        print(_line(r) + (f"  {r.detail}" if r.detail else f"  {same}" if r.passed else ""))
    n_fail = sum(not r.passed for r in results)
    n_same = sum(r.identical for r in results)
    print(f"{len(results) - n_fail} passed, {n_fail} failed; {n_same} of {len(results)} bit-identical to the "
          "recording machine's pyiml")
    return 1 if n_fail else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m parity", description=__doc__)
    ap.add_argument("-k", dest="pattern", default=None, help="only specs whose name contains this text")
    ap.add_argument("--report", default=None,
                    help="where to write the report (default: parity/REPORT.md on full runs; none with -k, "
                         "--record or --replay)")
    ap.add_argument("--docs", default=str(Path(__file__).parent.parent / "docs" / "parity.md"),
                    help="copy of the report for docs/ (written on full runs only, i.e. without -k)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--record", metavar="FILE",
                      help="also write R's side of every spec, the data and the model's predictions to FILE")
    mode.add_argument("--replay", metavar="FILE",
                      help="no R: run pyiml's side against a recording made with --record, and compare")
    args = ap.parse_args(argv)
    if args.replay:
        return _replay(args)
    specs = [s for s in load_specs() if not args.pattern or args.pattern in s.name]
    recording = None
    if args.record:
        from .replay import Recording

        recording = Recording()
    results = []
    for s in specs:
        r = run_spec(s, recording=recording)
        results.append(r)
        print(_line(r) + (f"  {r.detail}" if r.detail else ""))
    if recording is not None:
        recording.save(args.record)
    report = args.report or (None if args.pattern or args.record else str(Path(__file__).parent / "REPORT.md"))
    if report:
        write_report(results, Path(report))
    if not args.pattern and not args.record and args.docs and report:
        title, _, rest = Path(report).read_text().partition("\n")
        Path(args.docs).write_text(f"{title}\n\n{DOCS_PREFACE}{rest.lstrip()}")
    n_fail = sum(not r.passed for r in results)
    print(f"{len(results) - n_fail} passed, {n_fail} failed" + (f"; report: {report}" if report else "")
          + (f"; recording: {args.record}" if args.record else ""))
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
