"""The pyiml HTML report: every interpretation method on one model, in one self-contained page.

Use it from the command line (``python -m pyiml report --data FILE.csv --target COLUMN --model
MODEL.pkl``, or ``python -m pyiml demo``) or from Python::

    from pyiml.report import Case, Settings, build_report
    out = build_report([Case("mine", "My model", model, data, "y")], out_dir="report")
    print(out.path)

Computation and section layout live in :mod:`pyiml.report.build`, the page template in
:mod:`pyiml.report.html`, the side-by-side comparison with CRAN iml in
:mod:`pyiml.report.r_side`.
"""
from .build import (METHODS, BuildResult, Case, CaseResult, ReportWriteError, Settings, available_methods,
                    build_report, demo_cases, explain_case, resolve_methods)

__all__ = ["METHODS", "BuildResult", "Case", "CaseResult", "ReportWriteError", "Settings", "available_methods",
           "build_report", "demo_cases", "explain_case", "resolve_methods"]
