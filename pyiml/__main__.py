"""Command line: ``python -m pyiml report …`` and ``python -m pyiml demo`` (also the ``pyiml`` command).

``report`` explains a pickled model on a CSV file with every pyiml method and writes one
self-contained HTML page; ``demo`` does the same for models fitted on data shipped with
scikit-learn. Only the report location is printed (nothing with ``--quiet``; a progress bar
with ``--progress``); warnings raised while a method runs are shown in the report. Plots are
drawn with matplotlib's Agg unless MPLBACKEND names another backend; an MPLBACKEND that names
none is replaced by Agg with one line on stderr.
Usage errors (missing file, a CSV that is not UTF-8, unknown column or method, missing feature
values, a model without ``predict``, a ``--loss`` the model's predictions do not suit, a seed out of
range, an output directory or ``index.html`` in it that cannot be made or written) exit with status
2 and one message, before any method runs (a report file that cannot be written after all, once
the methods ran, also exits with 2 and one message); a pyiml method that fails while the report
is built is shown in the report and makes the exit status 1. Where CRAN iml fails in the
comparison (iml's own bugs, see docs/differences.md), the report shows its error and one line on
stderr says so; the status stays 0.
"""
from __future__ import annotations

import argparse
import os
import pickle
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from .random import _SEED_MAX as _R_SEED_MAX
from .random import _SEED_MIN as _R_SEED_MIN

__all__ = ["main", "build_parser"]

_METHODS_HELP = ("methods to run, by name or as a comma-separated list, case-insensitive: {} (default: every "
                 "one this pyiml provides)")


def _int_at_least(low: int, high: Optional[int] = None, why: str = ""):
    """An argparse type: a whole number >= ``low`` (and <= ``high``); ``why`` is added to the
    message of a number out of range."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if v < low or (high is not None and v > high):
            bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
            raise argparse.ArgumentTypeError(f"expected a number {bounds}, got {v}{why}")
        return v
    return parse


_nonneg_int = _int_at_least(0)
_pos_int = _int_at_least(1)
_numpy_seed = _int_at_least(0, why=" (numpy seeds are not negative; --r-seed takes R's negative seeds)")
# the seeds R's set.seed takes (a 32-bit integer; -2^31 is R's NA), as pyiml.RRandom does
_r_seed = _int_at_least(_R_SEED_MIN, _R_SEED_MAX, why=" (R's set.seed takes a 32-bit integer)")


def _add_common(p: argparse.ArgumentParser, default_out: str) -> None:
    p.add_argument("--out", default=default_out, metavar="DIR",
                   help=f"directory of the report (index.html), default {default_out!r}")
    from .report import METHODS

    p.add_argument("--methods", nargs="+", metavar="METHOD", help=_METHODS_HELP.format(", ".join(METHODS)))
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=_numpy_seed, metavar="N",
                       help="numpy seed for the random methods, >= 0 (report's default: none, so FeatureImp, Shapley "
                            "and Interaction vary from run to run); the comparison with CRAN iml replays "
                            f"set.seed(N), so N <= {_R_SEED_MAX} unless --no-r")
    seeds.add_argument("--r-seed", type=_r_seed, metavar="N",
                       help="R-exact random draws: pyiml.RRandom(N) per method, the numbers of CRAN iml after "
                            f"set.seed(N); N in [{_R_SEED_MIN}, {_R_SEED_MAX}], R's range")
    p.add_argument("--no-r", action="store_true", help="skip the side-by-side comparison with CRAN iml")
    p.add_argument("--quick", action="store_true",
                   help="small method settings (seconds instead of a minute; at most 120 rows unless --max-rows)")
    p.add_argument("--grid-size", type=_int_at_least(2), metavar="N",
                   help="FeatureEffect grid size (default 20; 6 with --quick); Interaction's grid is 20 (4 with "
                        "--quick) either way")
    p.add_argument("--n-repetitions", type=_pos_int, metavar="N",
                   help="FeatureImp repetitions (default 5; 2 with --quick)")
    p.add_argument("--sample-size", type=_pos_int, metavar="N",
                   help="Shapley sample size (default 100; 10 with --quick)")
    p.add_argument("--max-rows", type=_int_at_least(2), metavar="N",
                   help="use at most N rows of the data (a fixed random subset; default 2000)")
    p.add_argument("--progress", action="store_true", help="show a progress bar on stderr (not with --quiet)")
    p.add_argument("--quiet", action="store_true", help="print nothing (not even where the report was written)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pyiml`` command."""
    parser = argparse.ArgumentParser(
        prog="pyiml", description="Explain a model with every pyiml method and write an HTML report.")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"pyiml {__version__}",
                        help="print pyiml's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{report,demo}")
    rep = sub.add_parser("report", help="explain a pickled model on a CSV file",
                         description="Explain a pickled model (anything with predict; classifiers with "
                                     "predict_proba) on the rows of a CSV file.")
    rep.add_argument("--data", required=True, metavar="FILE.csv", help="the data: features and the target column")
    rep.add_argument("--target", required=True, metavar="COLUMN", help="the target column of the data")
    rep.add_argument("--model", required=True, metavar="MODEL.pkl",
                     help="the fitted model, saved with pickle or joblib")
    rep.add_argument("--row", type=_nonneg_int, default=0, metavar="I",
                     help="0-based position of the data row explained by Shapley and LocalModel (0, the default, is "
                          "the first row after the CSV header); the report numbers rows the same way")
    rep.add_argument("--loss", metavar="NAME",
                     help="FeatureImp loss (default: ce for classifiers, else mae); a model that predicts class "
                          "probabilities takes ce, a model with one numeric prediction the other losses (ce only "
                          "if it predicts values of the target); not f1, which compares sets of classes")
    rep.add_argument("--title", help="title of the report")
    _add_common(rep, "report")
    rep.set_defaults(subparser=rep)
    demo = sub.add_parser("demo", help="explain models fitted on data shipped with scikit-learn",
                          description="Explain a gradient boosting regressor (diabetes data) and a random forest "
                                      "classifier (iris data) with every pyiml method; R-exact draws "
                                      "(--r-seed 1) unless --seed or --r-seed is given.")
    _add_common(demo, "report")
    demo.set_defaults(subparser=demo)
    return parser


def _methods(parser: argparse.ArgumentParser, raw: Optional[Sequence[str]]) -> List[str]:
    from .report import resolve_methods

    names = None
    if raw:
        names = [part for item in raw for part in item.split(",") if part.strip()]
    try:
        return resolve_methods(names)
    except ValueError as exc:
        parser.error(str(exc))
        raise  # unreachable: parser.error exits


def _settings(args):
    from .report import Settings

    s = Settings.small() if args.quick else Settings()
    if args.grid_size:
        s.grid_size = args.grid_size
    if args.n_repetitions:
        s.n_repetitions = args.n_repetitions
    if args.sample_size:
        s.sample_size = args.sample_size
    if args.max_rows:
        s.max_rows = args.max_rows
    return s


def _load_model(parser: argparse.ArgumentParser, path: Path):
    if not path.is_file():
        parser.error(f"--model: no such file: {path}")
    try:
        with open(path, "rb") as fh:
            model = pickle.load(fh)
    except Exception as first:
        try:
            import joblib

            model = joblib.load(path)
        except Exception:
            parser.error(f"--model: cannot load {path} with pickle or joblib: {type(first).__name__}: {first}")
    if not callable(getattr(model, "predict", None)):
        parser.error(f"--model: the object in {path} ({type(model).__name__}) has no predict method; save a fitted "
                     "model (e.g. a scikit-learn estimator or pipeline)")
    return model


def _load_data(parser: argparse.ArgumentParser, path: Path, target: str, model):
    import pandas as pd

    try:   # the path was checked by _check_data_path before the model was loaded
        data = pd.read_csv(path)
        header = [str(c) for c in pd.read_csv(path, header=None, nrows=1, dtype=str).iloc[0]]
    except UnicodeDecodeError as exc:
        parser.error(f"--data: {path.name} is not UTF-8 text ({exc.reason} at byte {exc.start}): save it as UTF-8 "
                     "(pandas: df.to_csv(path, index=False, encoding='utf-8'))")
    except Exception as exc:
        parser.error(f"--data: cannot read {path} as CSV: {type(exc).__name__}: {exc}")
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        parser.error(f"--data: {path.name} has duplicated column names ({', '.join(dup)}): name every column once")
    if target not in data.columns:
        columns = ", ".join(map(str, data.columns))
        hint = ""
        if data.shape[1] == 1 and any(sep in str(data.columns[0]) for sep in ";\t|"):
            hint = "; the file seems not to be comma-separated: save it with ',' between the values"
        parser.error(f"--target: {target!r} is not a column of {path.name} (columns: {columns}){hint}")
    if len(data) < 2:
        parser.error(f"--data: {path.name} has {len(data)} data row(s); the report needs at least 2")
    if data[target].isna().any():
        parser.error(f"--target: column {target!r} has missing values; drop those rows first")
    expected = getattr(model, "feature_names_in_", None)
    if expected is not None:
        expected = [str(c) for c in expected]
        if target in expected:
            parser.error(f"--target: {target!r} is one of the columns the model was fitted with; give the column "
                         "the model predicts")
        missing = [c for c in expected if c not in data.columns]
        if missing:
            parser.error(f"--data: the model needs column(s) {', '.join(missing)} that {path.name} does not have")
        data = data[[c for c in expected if c != target] + [target]]
    if data.shape[1] < 3:
        parser.error(f"--data: {path.name} needs at least two feature columns besides the target")
    gaps = data.drop(columns=[target]).isna()
    if gaps.any().any():
        cols = [str(c) for c in gaps.columns[gaps.any()]]
        rows = int(gaps.any(axis=1).sum())
        parser.error(f"--data: column(s) {', '.join(cols)} of {path.name} have missing values ({rows} rows): the "
                     "methods need every feature value (so do iml's: grids, trees, points of interest); drop or "
                     "impute those rows before saving the CSV")
    return data


_NOT_CSV = (".xlsx", ".xls", ".parquet", ".feather", ".json", ".pkl", ".pickle", ".h5", ".hdf5")


def _check_data_path(parser: argparse.ArgumentParser, path: Path) -> None:
    if path.is_dir():
        parser.error(f"--data: {path} is a directory; give the CSV file")
    if not path.is_file():
        parser.error(f"--data: no such file: {path}")
    if path.suffix.lower() in _NOT_CSV:
        parser.error(f"--data: only CSV files are read; save {path.name} as CSV (pandas: df.to_csv(path, "
                     "index=False))")


def _check_out(parser: argparse.ArgumentParser, out: str) -> None:
    """The report directory, made (after the other checks, so that a usage error leaves nothing
    behind) before any method runs, and its ``index.html`` checked: a bad --out must not wait for
    every method. Writing is tried, not inferred from permissions (root may write anywhere
    os.access says, but not to e.g. /sys); see :func:`pyiml.report.build.check_report_path`."""
    from .report.build import ReportWriteError, check_report_path

    try:
        check_report_path(out)
    except ReportWriteError as exc:
        parser.error(f"--out: {exc}")


def _check_seed_range(parser: argparse.ArgumentParser, args) -> None:
    """--seed beyond R's range with the CRAN iml comparison, which replays set.seed(--seed)."""
    if args.seed is not None and args.seed > _R_SEED_MAX and not args.no_r:
        parser.error(f"--seed: {args.seed} is beyond {_R_SEED_MAX}, and the comparison with CRAN iml replays R's "
                     "set.seed(N), which takes a 32-bit integer: give a smaller seed, or add --no-r")


def _categorical_text(data):
    """Text columns as categoricals (R factors, which iml needs for ALE and the surrogate tree)."""
    out = data.copy()
    for c in out.columns:
        if out[c].dtype == object and out[c].map(lambda v: isinstance(v, str) or v != v).all():
            out[c] = out[c].astype("category")
    return out


def _predictable(parser: argparse.ArgumentParser, model, data, target: str):
    """``data`` with text columns as categoricals if the model predicts them, else as read."""
    import warnings

    first = None
    for candidate in (_categorical_text(data), data):
        try:
            with warnings.catch_warnings():   # (probes: e.g. scikit-learn's feature-name warnings)
                warnings.simplefilter("ignore")
                model.predict(candidate.drop(columns=[target]).head(5))
        except Exception as exc:  # try the data as read, then report the first problem
            first = first or exc
            continue
        try:   # every row (one call): a row the model cannot take would make every method fail
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.predict(candidate.drop(columns=[target]))
        except Exception as exc:
            parser.error(f"--model: the model predicts the first rows of --data but not all of them: "
                         f"{type(exc).__name__}: {exc}; drop or fix the rows it cannot take (e.g. a category it "
                         "was not fitted with)")
        return candidate
    from .predictor import array_width

    n_in = array_width(model)
    hint = ""
    if n_in is not None and n_in != data.shape[1] - 1:
        hint = (f"; the model was fitted on an array of {n_in} columns (no names): give --data exactly those "
                "columns, in the order the model was fitted with, and the target")
    parser.error(f"--model: the model cannot predict the rows of --data: {type(first).__name__}: {first}{hint}")


def _predictor_or_none(model, data, target: str):
    """The Predictor the usage checks read, or None when it cannot be made (the report itself then
    shows what is wrong with the model or data)."""
    from . import Predictor

    try:
        return Predictor(model, data=data, y=target)
    except Exception:
        return None


def _check_target(parser: argparse.ArgumentParser, predictor, data, target: str) -> None:
    """A regression model whose target column is text, or that predicts several outputs for one
    target, is a usage error (the report would score it against the wrong thing), before any work."""
    import pandas as pd

    if predictor is None or predictor.task != "regression":
        return
    try:
        outputs = list(predictor.predict(data.iloc[:5]).columns)
    except Exception:   # the report itself shows what is wrong with the model
        return
    name = type(predictor.model).__name__
    y = data[target]
    if not pd.api.types.is_numeric_dtype(y.dtype):   # (bool counts as numbers: 0/1)
        values = pd.Series(y.dropna().astype(str).unique())
        text = values[pd.to_numeric(values, errors="coerce").isna()]
        example = f" such as {text.iloc[0]!r}" if len(text) else ""
        parser.error(f"--target: column {target!r} holds text{example}, but the {name} model is a regressor that "
                     "predicts numbers: write the target as plain numbers (no thousands separators or units)")
    if len(outputs) > 1:
        parser.error(f"--model: the {name} model predicts {len(outputs)} outputs {outputs[:5]}, but --target names "
                     f"one numeric column ({target!r}): the report explains a model with one prediction per row; fit "
                     "one model per target")


def _check_loss(parser: argparse.ArgumentParser, loss: str, predictor, data, target: str) -> None:
    """A --loss the model's outputs and the target do not suit (a classification loss on a
    regression, a loss for numbers on class probabilities) is a usage error, before any work."""
    from .report.build import loss_problem
    from .report.html import as_written

    if predictor is None:
        return
    try:
        problem = loss_problem(loss, predictor, data[target])
    except Exception:   # the report itself shows what is wrong with the model or data
        return
    if problem:
        parser.error(f"--loss: {as_written(problem)}")


def _run(args, cases, methods, title: str, intro: str) -> int:
    import warnings

    from .report import ReportWriteError, build_report

    with warnings.catch_warnings():
        # a method's warnings are notes in the report; the rest (e.g. matplotlib's missing glyphs of
        # a font) would only clutter the terminal
        warnings.simplefilter("ignore")
        try:
            result = build_report(cases, out_dir=args.out, methods=methods, settings=_settings(args),
                                  seed=args.seed, r_seed=args.r_seed, compare_r=not args.no_r,
                                  progress=bool(args.progress) and not args.quiet,
                                  title=title, intro=intro)
        except ReportWriteError as exc:   # --out was checked first; this is a change since (or a full disk)
            args.subparser.error(f"--out: {exc}")
    if not args.quiet:
        print(f"Report written to {result.path.resolve()}")
        for f in result.failures:
            print(f"pyiml: {f}", file=sys.stderr)
        if result.r_failures:
            n = len(result.r_failures)
            print(f"pyiml: CRAN iml failed {n} time{'s' if n > 1 else ''} in the comparison (its errors are in the "
                  "report's last section)", file=sys.stderr)
    return 1 if result.failures else 0


def _report(parser, args) -> int:
    from .report import Case

    methods = _methods(parser, args.methods)
    _check_seed_range(parser, args)
    _check_data_path(parser, Path(args.data))
    model = _load_model(parser, Path(args.model))
    data = _load_data(parser, Path(args.data), args.target, model)
    if args.row >= len(data):
        parser.error(f"--row: {args.row} is outside the data (0..{len(data) - 1})")
    if args.loss is not None:
        from .losses import LOSSES

        if args.loss not in LOSSES:
            parser.error(f"--loss: unknown loss {args.loss!r}; choose from {', '.join(sorted(LOSSES))}")
    data = _predictable(parser, model, data, args.target)
    predictor = _predictor_or_none(model, data, args.target)
    _check_target(parser, predictor, data, args.target)
    if args.loss is not None:
        _check_loss(parser, args.loss, predictor, data, args.target)
    _check_out(parser, args.out)
    name = Path(args.model).stem
    case = Case(key=_key(name), title=f"{type(model).__name__} from {Path(args.model).name}", model=model, data=data,
                target=args.target, description=f"Data: `{Path(args.data).name}` ({len(data)} rows), target "
                                                f"`{args.target}`.", loss=args.loss, row=args.row)
    return _run(args, [case], methods, args.title or f"pyiml report: {name}",
                f"{type(model).__name__} explained on {Path(args.data).name}.")


def _key(name: str) -> str:
    out = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return out or "model"


def _demo(parser, args) -> int:
    from .report import demo_cases

    methods = _methods(parser, args.methods)
    _check_seed_range(parser, args)
    _check_out(parser, args.out)
    if args.seed is None and args.r_seed is None:
        args.r_seed = 1
    return _run(args, demo_cases(), methods, "pyiml demo report",
                "A gradient boosting regressor (diabetes) and a random forest classifier (iris), both from "
                "scikit-learn, explained with every pyiml method.")


def _use_matplotlib(quiet: bool) -> None:
    """Import matplotlib on Agg, or on the backend MPLBACKEND names.

    The report draws on matplotlib ``Figure`` objects and embeds them as PNG, so the backend
    never shows in it. An MPLBACKEND that names no backend (which makes ``import matplotlib``
    raise) is therefore replaced by Agg, with one line on stderr (none with ``--quiet``).
    """
    backend = os.environ.get("MPLBACKEND")
    if not backend:
        import matplotlib

        matplotlib.use("Agg")
        return
    imported_here = "matplotlib" not in sys.modules
    if imported_here:   # import it without MPLBACKEND, then check the name
        del os.environ["MPLBACKEND"]
        try:
            import matplotlib
        finally:
            os.environ["MPLBACKEND"] = backend
    import matplotlib

    try:
        matplotlib.rcsetup.validate_backend(backend)
    except ValueError:
        os.environ["MPLBACKEND"] = "Agg"   # for anything that imports pyplot later
        matplotlib.use("Agg")
        if not quiet:
            print(f"pyiml: MPLBACKEND={backend!r} is not a matplotlib backend; drawing with Agg (the report "
                  "only embeds PNG images)", file=sys.stderr)
        return
    if imported_here:
        matplotlib.rcParams["backend"] = backend   # what `import matplotlib` does with MPLBACKEND


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``python -m pyiml`` and the ``pyiml`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        print("pyiml: error: choose a command: report or demo", file=sys.stderr)
        return 2
    _use_matplotlib(quiet=args.quiet)
    if args.command == "report":
        return _report(args.subparser, args)
    return _demo(args.subparser, args)


if __name__ == "__main__":
    sys.exit(main())
