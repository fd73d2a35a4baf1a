"""The HTML report and the command line (`python -m pyiml report|demo`)."""
import base64
import html as html_lib
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pyiml
from pyiml.__main__ import main
from pyiml.report import METHODS, Settings, available_methods, build_report, demo_cases, resolve_methods
from pyiml.report import build as build_mod
from pyiml.report import html as H
from pyiml.report import r_side

# Section anchors each method adds to a case (the case key is prepended).
SECTION_OF = {
    "FeatureImp": ["featureimp"],
    "FeatureEffect": ["effects"],
    "FeatureEffects": ["featureeffects"],
    "Interaction": ["interaction", "interaction-2way"],
    "Shapley": ["shapley", "shapley-row", "shapley-batch"],
    "LocalModel": ["localmodel"],
    "TreeSurrogate": ["treesurrogate"],
}


def _ids(page: str):
    return re.findall(r'<section id="([^"]+)"', page)


def _images(page: str):
    return re.findall(r'<img src="([^"]+)"', page)


def _no_r(monkeypatch):
    from r_bridge import session

    monkeypatch.setattr(session, "availability_problem", lambda packages=(): "R is not installed (test)")


@pytest.fixture(scope="module")
def no_r_report(tmp_path_factory):
    """Both demo models, every available method, small settings, R made unavailable."""
    mp = pytest.MonkeyPatch()
    _no_r(mp)
    try:
        out = tmp_path_factory.mktemp("report")
        res = build_report(demo_cases(), out_dir=out, settings=Settings.small(), r_seed=1, progress=False)
    finally:
        mp.undo()
    return res, res.path.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- the report
def test_report_has_every_section_of_every_available_method(no_r_report):
    res, page = no_r_report
    assert res.failures == []
    ids = _ids(page)
    assert len(ids) == len(set(ids))
    for key in ("diabetes", "iris"):
        assert f"{key}-case" in ids and f"{key}-model" in ids
        for m in available_methods():
            for sid in SECTION_OF[m]:
                assert f"{key}-{sid}" in ids, f"section {key}-{sid} of {m} missing"
        for m in set(METHODS) - set(available_methods()):
            for sid in SECTION_OF[m]:
                assert f"{key}-{sid}" not in ids
    # every section is linked from the table of contents
    toc = page.split('<nav class="toc"', 1)[1].split("</nav>", 1)[0]
    for sid in ids:
        if not re.match(r"cran-iml-[a-z]+-", sid):  # per-method comparison tables are not listed
            assert f'href="#{sid}"' in toc


def test_report_is_self_contained_and_images_are_png(no_r_report):
    _, page = no_r_report
    imgs = _images(page)
    assert len(imgs) >= 2 * len(available_methods())
    for src in imgs:
        assert src.startswith("data:image/png;base64,")
        raw = base64.b64decode(src.split(",", 1)[1])
        assert raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) > 1000
    assert not re.search(r'(src|href)="(https?:|//)', page)
    assert "<script" not in page


def test_report_without_r_says_how_to_get_the_comparison(no_r_report):
    res, page = no_r_report
    assert res.r_problem == "R is not installed (test)"
    assert res.comparisons == []
    assert html_lib.escape(r_side.MISSING_LINE).replace("`make test`", "<code>make test</code>") in page
    assert page.count("make test</code> once") == 1
    sec = page.split(f'<section id="{r_side.SECTION_ID}"', 1)[1]
    assert "<table" not in sec and "<img" not in sec


def test_report_numbers_are_the_methods_results(no_r_report):
    res, _ = no_r_report
    case = res.cases[0]
    run = next(r for r in case.runs if r.method == "FeatureImp")
    imp = pyiml.FeatureImp(case.predictor, random_state=pyiml.RRandom(1), **run.kwargs)
    pd.testing.assert_frame_equal(run.outputs["results"], imp.results)
    assert list(imp.results.columns) == ["feature", "importance.05", "importance", "importance.95",
                                         "permutation.error"]


def test_sections_follow_the_requested_methods(tmp_path, monkeypatch):
    _no_r(monkeypatch)
    cases = demo_cases()[:1]
    res = build_report(cases, out_dir=tmp_path, methods=["shapley"], settings=Settings.small(), seed=3,
                       progress=False)
    ids = _ids(res.path.read_text(encoding="utf-8"))
    assert "diabetes-shapley" in ids and "diabetes-shapley-batch" in ids
    assert not any(i.endswith(("featureimp", "interaction", "treesurrogate", "localmodel")) for i in ids)
    assert [r.method for r in res.cases[0].runs] == ["Shapley", "Shapley"]


def test_explain_case_on_a_subset_keeps_the_explained_row():
    from pyiml.report import explain_case

    case = demo_cases()[0]
    case.row = 300
    settings = Settings.small()
    res = explain_case(case, methods=["LocalModel"], settings=settings, progress=False)
    assert len(res.data) == settings.max_rows
    (run,) = res.runs
    expected = case.data.drop(columns=case.target).iloc[[300]].reset_index(drop=True)
    pd.testing.assert_frame_equal(run.kwargs["x_interest"], expected)
    assert [c.id for c in res.section.children] == ["diabetes-model", "diabetes-localmodel"]


def test_rows_are_numbered_by_their_position_in_the_data_also_on_a_subset():
    """With --max-rows the report explains a subset; every row it names is the row's 0-based
    position in the data as given (was: its position within the subset, called "position 100 of
    the data" for the requested row 300, next to a note numbering it 300)."""
    from pyiml.report import explain_case

    case = demo_cases()[0]
    case.row = 300
    res = explain_case(case, methods=["Shapley", "LocalModel"], settings=Settings.small(), progress=False)
    X = case.data.drop(columns=case.target)
    sections = {s.id: s for s in res.section.walk()}
    texts = lambda sid: " ".join(getattr(b, "text", "") or getattr(b, "caption", "") or ""   # noqa: E731
                                 for b in sections[sid].blocks)
    assert sections["diabetes-shapley-row"].title == "Row 300"
    assert "row 300 of the data (0-based position" in texts("diabetes-shapley-row")
    assert sections["diabetes-localmodel"].title == "Local surrogate of row 300 (LocalModel)"
    assert [r.label for r in res.runs if r.key in ("shapley", "localmodel")] == [
        "Shapley row 300 (sample size 10)", "LocalModel row 300 (k 2)"]
    note = texts("diabetes-model")
    assert "it always contains the explained row 300" in note
    assert "0-based positions in the full data as given" in note and "not positions within the subset" in note
    # the batch: the rows it names are the rows it explains
    batch = next(r for r in res.runs if r.key == "shapley-batch")
    named = [int(n) for n in re.search(r"Rows ([0-9, ]+) of the data", texts("diabetes-shapley-batch"))
             .group(1).split(", ")]
    explained = pd.concat([batch.kwargs["x_interest"]] + batch.explain_rows, ignore_index=True)
    pd.testing.assert_frame_equal(explained, X.iloc[named].reset_index(drop=True))
    table = next(b for b in sections["diabetes-shapley-batch"].blocks if isinstance(b, H.Table))
    assert list(table.frame.columns) == ["feature"] + [f"row {n}" for n in named]


def test_default_methods_are_the_available_ones(monkeypatch):
    assert resolve_methods(None) == [m for m in METHODS if hasattr(pyiml, m)]
    monkeypatch.setattr(build_mod, "available_methods", lambda: ["FeatureImp", "Shapley"])
    assert resolve_methods(None) == ["FeatureImp", "Shapley"]
    assert resolve_methods(["shapley", "FEATUREIMP"]) == ["FeatureImp", "Shapley"]
    with pytest.raises(ValueError, match="'LocalModel' is not available in this pyiml"):
        resolve_methods(["LocalModel"])
    with pytest.raises(ValueError, match="unknown method 'Lime'"):
        resolve_methods(["Lime"])


@pytest.mark.r
def test_report_compares_every_method_with_cran_iml(r, tmp_path):
    res = build_report(demo_cases(), out_dir=tmp_path, settings=Settings.small(), r_seed=7, progress=False)
    assert res.failures == []
    page = res.path.read_text(encoding="utf-8")
    assert r_side.MISSING_LINE not in page
    rows = [row for c in res.comparisons for row in c.rows]
    assert {row["model"] for row in rows} == {"diabetes", "iris"}
    runs = [run for c in res.cases for run in c.runs]
    assert len(rows) == len(runs)
    for row in rows:
        assert row["agreement"] in ("identical", "equal (rel. ≤ 1e-10)"), row
        assert row["max abs diff"] <= 1e-10 * max(row["largest |value|"], 1.0), row
        assert row["pyiml seconds"] > 0 and row["iml seconds"] > 0, row   # both sides timed
    assert "pyiml seconds" in page and "iml seconds" in page
    ids = _ids(page)
    assert r_side.SECTION_ID in ids
    for c in res.comparisons:
        assert f"{r_side.SECTION_ID}-{c.key}" in ids


@pytest.mark.r
def test_comparison_recomputes_random_methods_with_r_draws_under_numpy_seed(r, tmp_path):
    case = demo_cases()[0]
    res = build_report([case], out_dir=tmp_path, methods=["FeatureImp"], settings=Settings.small(), seed=5,
                       progress=False)
    assert res.failures == []
    (row,) = res.comparisons[0].rows
    assert row["agreement"] in ("identical", "equal (rel. ≤ 1e-10)")
    assert "recomputed" in res.path.read_text(encoding="utf-8")


@pytest.mark.r
def test_comparison_of_a_subset_that_leaves_a_level_unused(r, tmp_path):
    """A level that only rows outside the report's subset have: pyiml drops unused levels, iml
    fails on them (2-D ALE "non-conformable arrays"), so R gets the factor without it, and the
    point of interest too (LocalModel: "level sets of factors are different")."""
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.compose import make_column_transformer

    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.normal(size=160), "b": rng.normal(size=160),
                       "city": pd.Categorical(rng.choice(["north", "south", "east"], 160),
                                              categories=["east", "north", "south", "west"])})
    df["y"] = df["a"] + (df["city"] == "north") * 2.0 + rng.normal(size=160) * 0.1
    model = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["city"]),
                                                  remainder="passthrough"), LinearRegression())
    model.fit(df[["a", "b", "city"]], df["y"])
    case = build_mod.Case("cat", "cat", model, df, "y")
    res = build_report([case], out_dir=tmp_path, methods=["FeatureEffect", "LocalModel"], settings=Settings.small(),
                       r_seed=1, progress=False)
    assert res.failures == [] and res.r_failures == []
    assert "west" in list(res.cases[0].data["city"].cat.categories)     # pyiml's side keeps the data as given
    for row in res.comparisons[0].rows:
        assert row["agreement"] in ("identical", "equal (rel. ≤ 1e-10)"), row


def test_diff_outputs_detects_differences():
    a = pd.DataFrame({"f": ["x", "y"], "v": [1.0, 2.0]})
    d, s, p = r_side.diff_outputs(a, a.copy())
    assert (d, s, p) == (0.0, 2.0, [])
    b = a.assign(v=[1.0, 2.5])
    assert r_side.diff_outputs(a, b)[0] == pytest.approx(0.5)
    assert r_side.diff_outputs(a, a.assign(f=["x", "z"]))[2]
    assert r_side.diff_outputs(a, a.rename(columns={"v": "w"}))[0] == np.inf
    assert r_side.diff_outputs({"a": a}, {"a": b})[0] == pytest.approx(0.5)
    assert r_side.diff_outputs(np.array([1.0, 2.0]), [1.0, 2.0 + 1e-3])[0] == pytest.approx(1e-3)


# ---------------------------------------------------------------------------- html helpers
@pytest.mark.parametrize("value, digits, expected", [
    (0.123456, 4, "0.1235"), (1234.5678, 4, "1235"), (123456.7, 4, "123457"), (2e-7, 3, "2.00e-07"),
    (0.0, 4, "0"), (np.nan, 4, "NaN"), (np.inf, 4, "Inf"), (-np.inf, 4, "-Inf"), (7, 4, "7"),
    (np.int64(12), 4, "12"), (None, 4, "NA"), (True, 4, "TRUE"), ("a<b", 4, "a<b"),
])
def test_format_number(value, digits, expected):
    assert H.format_number(value, digits) == expected


def test_render_escapes_and_rejects_duplicate_ids():
    table = H.Table(pd.DataFrame({"k": ["<i>"], "v": [1.5]}), caption="cap", max_rows=None)
    sec = H.Section("a", "Title <b>", [H.Text("x < y and `code`"), table])
    page = H.render(H.Report("R & D", sections=[sec]))
    assert "<title>R &amp; D</title>" in page
    assert "Title &lt;b&gt;" in page and "x &lt; y and <code>code</code>" in page
    assert "&lt;i&gt;" in page and '<td class="num">1.5</td>' in page
    with pytest.raises(ValueError, match="duplicated section ids"):
        H.render(H.Report("t", sections=[H.Section("a", "1"), H.Section("a", "2")]))


def test_table_shows_at_most_max_rows():
    t = H.Table(pd.DataFrame({"v": np.arange(50.0)}), caption="values", max_rows=10)
    page = H.render(H.Report("t", sections=[H.Section("s", "s", [t])]))
    assert "values (first 10 of 50 rows)" in page
    assert page.count("<tr>") == 11


# ---------------------------------------------------------------------------- command line
@pytest.fixture(scope="module")
def user_files(tmp_path_factory):
    from sklearn.linear_model import LogisticRegression, Ridge

    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=60), "b": rng.uniform(size=60), "c": rng.normal(size=60)})
    df["y"] = 2 * df["a"] - df["b"] + 0.5 * df["a"] * df["c"] + rng.normal(scale=0.1, size=60)
    df.to_csv(d / "data.csv", index=False)
    df.rename(columns={"y": "y`t"}).to_csv(d / "tick.csv", index=False)
    with open(d / "model.pkl", "wb") as fh:
        pickle.dump(Ridge(alpha=0.1).fit(df[["a", "b", "c"]], df["y"]), fh)
    cls = df.assign(y=np.where(df["a"] > 0, "pos", "neg"))
    cls.to_csv(d / "cls.csv", index=False)
    with open(d / "logit.pkl", "wb") as fh:
        pickle.dump(LogisticRegression().fit(cls[["a", "b", "c"]], cls["y"]), fh)
    with open(d / "notamodel.pkl", "wb") as fh:
        pickle.dump({"coef": [1, 2]}, fh)
    (d / "garbage.pkl").write_bytes(b"not a pickle")
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    cat = df.assign(c=np.where(df["c"] > 0, "u", "v"))
    onehot = make_pipeline(make_column_transformer((OneHotEncoder(), ["c"]), remainder="passthrough"), Ridge())
    with open(d / "onehot.pkl", "wb") as fh:
        pickle.dump(onehot.fit(cat[["a", "b", "c"]], cat["y"]), fh)
    cat.assign(c=np.where(np.arange(60) == 30, "w", cat["c"])).to_csv(d / "unseen.csv", index=False)
    df.head(0).to_csv(d / "header_only.csv", index=False)
    df.head(1).to_csv(d / "one_row.csv", index=False)
    df.to_csv(d / "semi.csv", index=False, sep=";")
    (d / "dup.csv").write_text("a,b,a,y\n1,2,3,4\n5,6,7,8\n")
    df.assign(b=df["b"].where(df.index % 7 != 3)).to_csv(d / "gaps.csv", index=False)
    (d / "latin1.csv").write_bytes("a,b,city,y\n1,2,Zürich,4\n5,6,Genève,8\n".encode("latin-1"))
    (d / "data.xlsx").write_bytes(b"PK\x03\x04 not really")
    df.assign(y=[f"{v:,.3f}k" for v in df["y"]]).to_csv(d / "textual.csv", index=False)
    with open(d / "np.pkl", "wb") as fh:    # fitted on an array: no column names
        pickle.dump(Ridge().fit(df[["a", "b", "c"]].to_numpy(), df["y"]), fh)
    df.assign(extra=1.0).to_csv(d / "extra.csv", index=False)
    with open(d / "two.pkl", "wb") as fh:   # two outputs for one target
        pickle.dump(Ridge().fit(df[["a", "b", "c"]], np.column_stack([df["y"], -df["y"]])), fh)
    (d / "adir").mkdir()
    (d / "afile").write_text("x")
    return d


def _cli(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    captured = capsys.readouterr()
    return exc.value.code, captured.out, captured.err


@pytest.mark.parametrize("change, message", [
    ({"--data": "missing.csv"}, "--data: no such file"),
    ({"--model": "missing.pkl"}, "--model: no such file"),
    ({"--target": "nope"}, r"--target: 'nope' is not a column of data\.csv \(columns: a, b, c, y\)"),
    ({"--model": "notamodel.pkl"}, "the object in .*notamodel.pkl \\(dict\\) has no predict method"),
    ({"--model": "garbage.pkl"}, "cannot load .*garbage.pkl with pickle or joblib"),
    ({"--methods": "FeatureImp,Lime"}, "unknown method 'Lime'"),
    ({"--row": "60"}, "--row: 60 is outside the data"),
    ({"--loss": "hinge"}, "--loss: unknown loss 'hinge'"),
    # were: a report whose importances are all 1 (ce on a regression), and a FeatureImp failure in
    # the report, exit 1, after every other method ran (mae on class probabilities)
    ({"--loss": "ce"}, r"--loss: 'ce' is a classification loss .*Ridge model predicts numbers that are not values "
                       r"of the target `y`.*use a regression loss such as mae, mse or rmse"),
    # was: the target's backtick printed as the report's stand-in character \x01
    ({"--loss": "ce", "--data": "tick.csv", "--target": "y`t"}, r"predicts numbers that are not values of the "
                                                                r"target `y`t`"),
    ({"--loss": "mae", "--data": "cls.csv", "--model": "logit.pkl"},
     r"--loss: 'mae' needs one numeric prediction per row, but the LogisticRegression model predicts 2 classes "
     r"\(neg, pos\).*use the classification loss ce"),
    # were: "--row: 0 is outside the data (0..-1)", a raw IndexError traceback, "no such file", a
    # UnicodeDecodeError, a list of one column "a;b;c;y", a silent renaming to a.1, sklearn's
    # multi-line feature-name message, four failed sections, a traceback after every method ran
    ({"--data": "header_only.csv"}, "--data: header_only.csv has 0 data row"),
    ({"--data": "one_row.csv"}, "--data: one_row.csv has 1 data row.*at least 2"),
    ({"--data": "adir"}, "--data: .*adir is a directory"),
    ({"--data": "data.xlsx"}, "--data: only CSV files are read"),
    ({"--data": "semi.csv"}, "seems not to be comma-separated"),
    ({"--data": "dup.csv"}, r"duplicated column names \(a\)"),
    ({"--target": "a"}, "--target: 'a' is one of the columns the model was fitted with"),
    ({"--grid-size": "1"}, "--grid-size: .*expected a number >= 2"),
    ({"--out": "afile"}, "--out: .*afile exists and is not a directory"),
    ({"--data": "gaps.csv"}, r"--data: column\(s\) b of gaps.csv have missing values \(9 rows\).*drop or impute"),
    # was: every method failed (exit 1) on the category row 30 holds, after the first 5 rows predicted
    ({"--data": "unseen.csv", "--model": "onehot.pkl"},
     r"--model: the model predicts the first rows of --data but not all of them: ValueError: .*unknown "
     r"categor.*drop or fix the rows"),
    # were: a report of meaningless numbers (exit 0) and a FeatureImp failure advising an API argument (exit 1)
    ({"--model": "two.pkl"}, r"--model: the Ridge model predicts 2 outputs .*fit one model per target"),
    ({"--model": "np.pkl", "--data": "extra.csv"}, r"X has 4 features.*fitted on an array of 3 columns \(no names\)"),
    ({"--data": "textual.csv"}, r"--target: column 'y' holds text such as '.*k', but the Ridge model is a regressor"),
    ({"--loss": "logLoss"}, r"--loss: 'logLoss' needs predicted probabilities in \[0, 1\].*use a regression loss"),
    ({"--data": "latin1.csv"}, r"--data: latin1.csv is not UTF-8 text \(invalid .* at byte \d+\): save it as UTF-8"),
])
def test_cli_usage_errors_exit_2_with_a_message(user_files, tmp_path, capsys, change, message):
    opts = {"--data": "data.csv", "--target": "y", "--model": "model.pkl"}
    opts.update(change)
    args = ["report"]
    opts.setdefault("--out", str(tmp_path))
    for k, v in opts.items():
        if k in ("--data", "--model") or (k == "--out" and v == "afile"):
            v = str(user_files / v)
        args += [k, v]
    code, out, err = _cli(args + ["--quiet"], capsys)
    assert code == 2
    assert out == ""
    assert re.search(message, err), err
    assert err.startswith("usage: pyiml report") and "Traceback" not in err
    assert not (tmp_path / "index.html").exists()


def test_cli_usage_error_leaves_no_out_directory_and_out_must_take_files(user_files, tmp_path, capsys):
    """--out is made after the other checks (a usage error made it and left it behind), and
    writing is tried: /proc passes a permission check as root but takes no files."""
    base = ["report", "--data", str(user_files / "data.csv"), "--model", str(user_files / "model.pkl")]
    code, _, err = _cli(base + ["--target", "nope", "--out", str(tmp_path / "new" / "deep")], capsys)
    assert code == 2 and "--target" in err and not (tmp_path / "new").exists()
    if os.path.isdir("/proc/self"):
        code, _, err = _cli(base + ["--target", "y", "--out", "/proc"], capsys)
        assert code == 2 and "--out: cannot write to /proc" in err


@pytest.mark.r
def test_cli_where_cran_iml_fails_shows_it_and_exits_0(r, tmp_path, capsys):
    """iml cannot take a logical feature (its Predictor stops); pyiml's methods all run, so the
    status is 0, with one line on stderr and the header saying why nothing was compared."""
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40), "flag": rng.random(40) > 0.5})
    df["y"] = df["a"] + df["flag"] * 1.0
    df.to_csv(tmp_path / "d.csv", index=False)
    with open(tmp_path / "m.pkl", "wb") as fh:
        pickle.dump(LinearRegression().fit(df[["a", "b", "flag"]], df["y"]), fh)
    code = main(["report", "--data", str(tmp_path / "d.csv"), "--target", "y", "--model", str(tmp_path / "m.pkl"),
                 "--methods", "FeatureImp", "--quick", "--r-seed", "1", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("Report written to")
    assert err == "pyiml: CRAN iml failed 1 time in the comparison (its errors are in the report's last section)\n"
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "iml could not make its Predictor for <code>m</code>" in page and "0 of 0" not in page


def test_cli_unavailable_method_is_a_usage_error(user_files, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(build_mod, "available_methods", lambda: ["FeatureImp"])
    code, _, err = _cli(["report", "--data", str(user_files / "data.csv"), "--target", "y", "--model",
                         str(user_files / "model.pkl"), "--methods", "TreeSurrogate", "--out", str(tmp_path)], capsys)
    assert code == 2 and "'TreeSurrogate' is not available in this pyiml (it provides FeatureImp)" in err


def test_cli_seed_options_exclude_each_other(capsys):
    code, _, err = _cli(["demo", "--seed", "1", "--r-seed", "2"], capsys)
    assert code == 2 and "not allowed with argument" in err


def test_cli_without_command_prints_usage(capsys):
    assert main([]) == 2
    assert "choose a command" in capsys.readouterr().err


def test_cli_report_prints_only_the_location(user_files, tmp_path, capsys, monkeypatch):
    _no_r(monkeypatch)
    out_dir = tmp_path / "rep"
    code = main(["report", "--data", str(user_files / "data.csv"), "--target", "y", "--model",
                 str(user_files / "model.pkl"), "--out", str(out_dir), "--quick", "--methods", "FeatureImp",
                 "Shapley", "--r-seed", "3", "--row", "5"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out == f"Report written to {(out_dir / 'index.html').resolve()}\n"
    assert captured.err == ""
    page = (out_dir / "index.html").read_text(encoding="utf-8")
    assert "model-featureimp" in page and "model-shapley-row" in page and "Row 5" in page
    assert "RRandom(3)" in page


def test_cli_quiet_wins_over_progress_and_counts_are_singular_for_one(user_files, tmp_path, capsys, monkeypatch):
    _no_r(monkeypatch)
    code = main(["report", "--data", str(user_files / "data.csv"), "--target", "y", "--model",
                 str(user_files / "model.pkl"), "--out", str(tmp_path), "--quick", "--methods", "FeatureImp",
                 "Shapley", "--n-repetitions", "1", "--sample-size", "1", "--quiet", "--progress"])
    captured = capsys.readouterr()
    assert code == 0 and captured.out == "" and captured.err == ""
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "1 permutation per" in page and "(1 sample per row)" in page
    assert "1 permutations" not in page and "1 samples" not in page


def test_cli_reads_text_columns_as_categoricals_when_the_model_takes_them(tmp_path):
    from pyiml.__main__ import _load_data, _predictable, build_parser

    path = tmp_path / "d.csv"
    pd.DataFrame({"a": [1.5, 2.0, 3.0], "city": ["x", "y", "x"], "n": [1, 2, 3], "t": ["u", "v", "u"]}).to_csv(
        path, index=False)
    parser = build_parser()
    data = _load_data(parser, path, "t", model=None)

    class Model:
        def __init__(self, accept_categorical):
            self.accept = accept_categorical

        def predict(self, X):
            if not self.accept and isinstance(X["city"].dtype, pd.CategoricalDtype):
                raise TypeError("strings only")
            return np.zeros(len(X))

    taken = _predictable(parser, Model(True), data, "t")
    assert list(taken.dtypes.astype(str)) == ["float64", "category", "int64", "category"]
    assert list(taken["city"].cat.categories) == ["x", "y"]
    as_read = _predictable(parser, Model(False), data, "t")
    assert list(as_read.dtypes.astype(str)) == ["float64", "object", "int64", "object"]


def test_python_m_pyiml_subprocess_errors_have_no_traceback(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pyiml", "report", "--data", str(tmp_path / "x.csv"), "--target",
                          "y", "--model", str(tmp_path / "m.pkl")], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "--data: no such file" in res.stderr and "Traceback" not in res.stderr
    assert res.stdout == ""


class _ProductModel:
    """y = 3 p (q:r) + 0.1 q + a`b, as a model with a predict method."""

    def predict(self, X):
        return 3 * X["p"].to_numpy() * X["q:r"].to_numpy() + 0.1 * X["q"].to_numpy() + X["a`b"].to_numpy()


def _awkward_case(kind):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LinearRegression

    from pyiml.report import Case

    rng = np.random.default_rng(1)
    n = 80
    if kind == "slugs":       # "x 1" and "x-1" slug alike; a constant column
        df = pd.DataFrame({"x 1": rng.normal(size=n), "x-1": rng.normal(size=n), "k": np.ones(n)})
        df["y"] = df["x 1"] + 2 * df["x-1"]
        model = LinearRegression().fit(df[["x 1", "x-1", "k"]], df["y"])
    elif kind == "bool":      # a bool target: classes named "False", "True"
        df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
        df["y"] = df["a"] > 0
        model = RandomForestClassifier(n_estimators=20, random_state=0).fit(df[["a", "b"]], df["y"])
    elif kind == "float_labels":
        df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
        df["y"] = np.where(df["a"] > 0, 2.0, 1.0)
        model = RandomForestClassifier(n_estimators=20, random_state=0).fit(df[["a", "b"]], df["y"])
    elif kind == "names":     # a backtick and a colon in feature names; p and q:r interact
        df = pd.DataFrame({"p": rng.normal(size=n), "q:r": rng.normal(size=n), "q": rng.normal(size=n),
                           "a`b": rng.normal(size=n)})
        df["y"] = 3 * df["p"] * df["q:r"] + 0.1 * df["q"] + df["a`b"]
        model = _ProductModel()
    else:                     # a constant target: R² undefined, model error 0
        df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "y": np.full(n, 3.0)})
        model = LinearRegression().fit(df[["a", "b"]], df["y"])
    return Case(key=kind, title=kind, model=model, data=df, target="y")


def test_report_on_awkward_data(tmp_path, monkeypatch):
    """Features whose names slug alike (was: "duplicated section ids" after every method ran), a
    constant feature (was: FeatureEffects failed), a bool or float-labelled classifier (was:
    accuracy 0.000), a constant target (was: R² nan, FeatureImp's text said ratio)."""
    _no_r(monkeypatch)
    s = Settings.small()
    s.top_features = 2
    res = build_report([_awkward_case(k) for k in ("slugs", "bool", "float_labels", "constant")],
                       out_dir=tmp_path, settings=s, seed=1)
    page = res.path.read_text(encoding="utf-8")
    assert len(res.section_ids) == len(set(res.section_ids))
    assert "slugs-effect-x-1" in res.section_ids and "slugs-effect-x-1-2" in res.section_ids
    assert not any("FeatureEffects failed" in f for f in res.failures), res.failures
    assert "Left out, constant in the data (no effect to show): <code>k</code>" in page
    acc = re.findall(r"accuracy on these data</th><td>([0-9.]+)", page)
    assert len(acc) == 2 and all(float(a) > 0.9 for a in acc), acc
    assert "R² on these data</th><td>undefined (constant target)" in page
    assert "minus the original error (0)" in page
    assert "No comparison: R is not installed (test). Install R" in page   # what is missing, then how to get it


def test_report_names_with_backticks_and_colons(tmp_path, monkeypatch):
    """A backtick in a feature name ended the name's code span early (the page showed `a` then
    b` as text); the two-way partner was found by splitting iml's "a:b" label at every colon
    (for a feature q:r it took q, a feature that hardly interacts)."""
    _no_r(monkeypatch)
    s = Settings.small()
    s.top_features = 4
    res = build_report([_awkward_case("names")], out_dir=tmp_path, settings=s, seed=1)
    assert not res.failures, res.failures
    page = res.path.read_text(encoding="utf-8")
    assert "<h3><code>a`b</code></h3>" in page and "ALE of <code>a`b</code>:" in page
    assert "\x01" not in page
    pair = re.search(r"strongest pair <code>(.*?)</code> × <code>(.*?)</code>", page)
    assert pair is not None and set(pair.groups()) == {"p", "q:r"}, pair and pair.groups()


def test_cli_version_prints_the_pyiml_version(capsys):
    """Was: "unrecognized arguments: --version", exit 2."""
    code, out, err = _cli(["--version"], capsys)
    assert code == 0
    assert out == f"pyiml {pyiml.__version__}\n" and err == ""


def test_loss_problem_names_losses_the_model_and_target_do_not_suit():
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from pyiml.report.build import loss_problem

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    reg = df.assign(y=df["a"] + rng.normal(size=40))
    p_reg = pyiml.Predictor(LinearRegression().fit(reg[["a", "b"]], reg["y"]), data=reg, y="y")
    assert "use a regression loss" in loss_problem("ce", p_reg, reg["y"])
    for loss in ("mae", "mse", "rmse"):
        assert loss_problem(loss, p_reg, reg["y"]) is None
    # FeatureImp refuses logLoss of values outside [0, 1] (after every other method ran, exit 1)
    assert "needs predicted probabilities in [0, 1]" in loss_problem("logLoss", p_reg, reg["y"])
    cls = df.assign(y=np.where(df["a"] > 0, "u", "v"))
    p_cls = pyiml.Predictor(LogisticRegression().fit(cls[["a", "b"]], cls["y"]), data=cls, y="y")
    for loss in ("mae", "mse", "logLoss"):
        assert "use the classification loss ce" in loss_problem(loss, p_cls, cls["y"])
    assert loss_problem("ce", p_cls, cls["y"]) is None
    for p, y in ((p_reg, reg["y"]), (p_cls, cls["y"])):   # Metrics::f1 compares sets of classes: importances all 1
        assert "compares the set of classes" in loss_problem("f1", p, y)

    class Labels:   # one output column holding the predicted labels: ce suits it
        def predict(self, X):
            return (X["a"].to_numpy() > 0).astype(float)

    for y in (np.where(df["a"] > 0, 1, 0), df["a"].to_numpy() > 0):
        lab = df.assign(y=y)
        p_lab = pyiml.Predictor(Labels(), data=lab, y="y")
        assert loss_problem("ce", p_lab, lab["y"]) is None


def test_report_feature_imp_fails_with_a_loss_the_model_does_not_suit(tmp_path, monkeypatch):
    """build_report with Case(loss="ce") on a regression: the FeatureImp section says why, no
    importances (were all 1)."""
    _no_r(monkeypatch)
    case = demo_cases()[0]
    case.loss = "ce"
    res = build_report([case], out_dir=tmp_path, methods=["FeatureImp"], settings=Settings.small(), seed=1)
    assert len(res.failures) == 1 and "FeatureImp failed: ValueError: loss 'ce' is a classification loss" in \
        res.failures[0]
    assert res.cases[0].runs == []


def test_comparison_scale_is_the_largest_computed_value_not_an_id_or_grid_point(monkeypatch):
    """"largest |value|", the scale of the agreement, is over value columns only (was: over every
    numeric column, so a PDP grid of incomes near 9e4 and `.id` made a difference of 1e-7 in
    values near 0.04 read as "equal (rel. ≤ 1e-10)")."""
    import types

    import r_bridge

    from pyiml.report import explain_case
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"income": rng.uniform(2e4, 9e4, 60), "age": rng.uniform(20, 70, 60)})
    df["y"] = 1e-6 * df["income"] + 1e-3 * df["age"]
    model = LinearRegression().fit(df[["income", "age"]], df["y"])
    case = build_mod.Case("inc", "inc", model, df, "y")
    res = explain_case(case, methods=["FeatureEffect", "TreeSurrogate"], settings=Settings.small(), r_seed=1)

    class FakeIml:   # iml's numbers: pyiml's, each value column moved by 1e-7
        def __init__(self, run):
            self.run, self.results = run, run.outputs["results"].copy()
            for c in run.value_columns:
                self.results[c] = self.results[c] + 1e-7

        def field(self, k):
            return self.run.outputs[k]

    runs = iter(res.runs)
    fake = types.SimpleNamespace(r_predictor=lambda **kw: None, iml=lambda *a, **kw: FakeIml(next(runs)))
    monkeypatch.setitem(sys.modules, "r_bridge.iml", fake)
    monkeypatch.setattr(r_bridge, "iml", fake, raising=False)
    cmp = r_side.compare_case(res, 1, build_mod._Progress(0, False, ""))
    assert cmp.failures == []
    by_method = {row["method"]: row for row in cmp.rows}
    assert set(by_method) == {"FeatureEffect ale income", "FeatureEffect pdp+ice income", "TreeSurrogate (maxdepth 2)"}
    for run in res.runs:
        row = by_method[run.label.replace("`", "")]
        assert row["max abs diff"] == pytest.approx(1e-7, rel=1e-3)
        assert row["largest |value|"] < 1.5, row   # not a grid point, a feature value or an id
        assert row["agreement"].startswith("differs (rel."), row
        fake_res = FakeIml(run).results
        values = fake_res[r_side.value_columns(fake_res.columns, ["income", "age"])].abs().to_numpy().max()
        extra = np.abs(run.outputs.get("r.squared", 0.0)).max()
        assert row["largest |value|"] == max(values, extra), row


def test_value_columns_leave_out_ids_grids_and_feature_values():
    cols = [".type", ".class", ".value", ".id", "x", ".borders", ".feature", ".ale", ".left", ".right", ".bottom",
            ".top", "phi", "phi.var", "beta", "x.recoded", "effect", ".node", ".y.hat", ".y.hat.tree.a",
            "importance", "importance.05", "permutation.error", ".interaction"]
    assert r_side.value_columns(cols, ["x"]) == [
        ".value", ".ale", "phi", "phi.var", "beta", "effect", ".y.hat", ".y.hat.tree.a", "importance",
        "importance.05", "permutation.error", ".interaction"]
    assert r_side.value_columns(["phi", ".value"], ["phi"]) == [".value"]   # a feature named like a value
    frame = pd.DataFrame({".id": [1, 200], ".value": [0.5, -0.25]})
    assert r_side.diff_outputs(frame, frame, scale_columns=[".value"])[1] == 0.5
    assert r_side.diff_outputs(frame, frame)[1] == 200


def test_cli_invalid_mplbackend_falls_back_to_agg_with_one_line(user_files, tmp_path):
    """MPLBACKEND=nonsense made `import matplotlib` raise: a traceback, exit 1. The report only
    embeds PNGs, so it draws with Agg and says so on stderr (nothing with --quiet)."""
    import os
    from pathlib import Path

    env = dict(os.environ, MPLBACKEND="nonsense")
    args = [sys.executable, "-m", "pyiml", "report", "--data", str(user_files / "data.csv"), "--target", "y",
            "--model", str(user_files / "model.pkl"), "--quick", "--no-r", "--methods", "FeatureImp"]
    res = subprocess.run(args + ["--out", str(tmp_path / "a")], capture_output=True, text=True, timeout=300, env=env,
                         cwd=Path(__file__).resolve().parents[1])
    assert res.returncode == 0, res.stderr
    assert res.stderr == ("pyiml: MPLBACKEND='nonsense' is not a matplotlib backend; drawing with Agg (the report "
                          "only embeds PNG images)\n")
    assert res.stdout.startswith("Report written to ")
    assert len(_images((tmp_path / "a" / "index.html").read_text(encoding="utf-8"))) == 1
    res = subprocess.run(args + ["--out", str(tmp_path / "b"), "--quiet"], capture_output=True, text=True,
                         timeout=300, env=env, cwd=Path(__file__).resolve().parents[1])
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")


# ---------------------------------------------------------------------------- --out's index.html, seeds
def _no_methods(monkeypatch):
    """Make running any method fail loudly: the checks below must stop before the work."""
    def refuse(*args, **kwargs):
        raise AssertionError("a method ran before the usage error")
    monkeypatch.setattr(build_mod, "_CaseExplainer", refuse)


def _report_args(user_files, out):
    return ["report", "--data", str(user_files / "data.csv"), "--target", "y", "--model",
            str(user_files / "model.pkl"), "--out", str(out), "--quick", "--methods", "FeatureImp"]


def test_cli_index_html_that_is_a_directory_is_a_usage_error_before_any_work(user_files, tmp_path, capsys,
                                                                             monkeypatch):
    # was: every method ran, then IsADirectoryError's traceback and exit 1
    _no_r(monkeypatch)
    _no_methods(monkeypatch)
    (tmp_path / "index.html").mkdir()
    for command in (_report_args(user_files, tmp_path), ["demo", "--out", str(tmp_path), "--quick"]):
        code, out, err = _cli(command, capsys)
        assert code == 2 and out == "" and "Traceback" not in err
        assert re.search(r"--out: .*index\.html is a directory, where the report's file goes: remove or rename it",
                         err), err
    with pytest.raises(build_mod.ReportWriteError, match=r"index\.html is a directory"):
        build_report(demo_cases()[:1], out_dir=tmp_path, methods=["FeatureImp"], settings=Settings.small())


def test_cli_index_html_linking_to_a_missing_directory_is_a_usage_error_before_any_work(user_files, tmp_path,
                                                                                       capsys, monkeypatch):
    # was: every method ran, then the write through the link failed
    _no_r(monkeypatch)
    _no_methods(monkeypatch)
    (tmp_path / "index.html").symlink_to(tmp_path / "gone" / "page.html")
    code, out, err = _cli(_report_args(user_files, tmp_path), capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert re.search(r"--out: .*index\.html is a symbolic link to .*gone.page\.html, whose directory does not "
                     r"exist: remove the link", err), err
    assert not (tmp_path / "gone").exists()


def test_index_html_linking_to_a_missing_file_in_a_directory_is_written_there(tmp_path):
    """A link to a file yet to be made is followed, as open() follows it."""
    (tmp_path / "site").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "index.html").symlink_to(tmp_path / "site" / "page.html")
    assert build_mod.check_report_path(tmp_path / "out") == tmp_path / "out" / "index.html"
    assert list((tmp_path / "site").iterdir()) == []      # the check leaves nothing behind


def test_cli_read_only_index_html_is_a_usage_error_before_any_work(user_files, tmp_path, capsys, monkeypatch):
    # was: every method ran, then PermissionError's traceback and exit 1
    _no_r(monkeypatch)
    _no_methods(monkeypatch)
    page = tmp_path / "index.html"
    page.write_text("old")
    page.chmod(0o444)
    if not hasattr(os, "geteuid") or os.geteuid() == 0:
        # root writes read-only files: the check's open for appending fails as it would for a user
        from pathlib import Path

        real_open = open

        def user_open(file, mode="r", *args, **kwargs):
            if Path(file) == page and any(c in mode for c in "wa+"):
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, mode, *args, **kwargs)
        monkeypatch.setattr(build_mod, "open", user_open, raising=False)
    code, _, err = _cli(_report_args(user_files, tmp_path), capsys)
    assert code == 2 and "--out: cannot write " in err and "make it writable" in err and "Traceback" not in err
    assert page.read_text() == "old"


def test_cli_report_file_that_cannot_be_written_after_the_work_is_one_message(user_files, tmp_path, capsys,
                                                                              monkeypatch):
    """index.html checked at the start but not writable at the end (changed meanwhile, a full
    disk): exit 2 with one line naming --out, not a traceback."""
    from pathlib import Path

    _no_r(monkeypatch)
    write_text = Path.write_text

    def failing(self, *args, **kwargs):
        if self.name == "index.html":
            raise PermissionError(13, "Permission denied")
        return write_text(self, *args, **kwargs)
    monkeypatch.setattr(Path, "write_text", failing)
    code, out, err = _cli(_report_args(user_files, tmp_path), capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert re.search(r"--out: cannot write .*index\.html: Permission denied", err), err


@pytest.mark.parametrize("args, message", [
    # were: accepted, then every random method failed in the report (exit 1), or the comparison
    # with CRAN iml failed on RRandom(--seed) and was blamed on iml
    (["--r-seed", "2147483648"], r"--r-seed: expected a number in \[-2147483647, 2147483647\], got 2147483648 "
                                 r"\(R's set.seed takes a 32-bit integer\)"),
    (["--r-seed", "-2147483648"], r"--r-seed: expected a number in \[-2147483647, 2147483647\]"),
    (["--seed", "-1"], r"--seed: expected a number >= 0, got -1 \(numpy seeds are not negative; --r-seed takes "
                       r"R's negative seeds\)"),
    (["--seed", "2147483648"], r"--seed: 2147483648 is beyond 2147483647, and the comparison with CRAN iml replays "
                               r"R's set.seed\(N\).*add --no-r"),
])
def test_cli_seeds_out_of_range_are_usage_errors(user_files, tmp_path, capsys, monkeypatch, args, message):
    _no_methods(monkeypatch)
    for command in (_report_args(user_files, tmp_path), ["demo", "--out", str(tmp_path), "--quick"]):
        code, _, err = _cli(command + args, capsys)
        assert code == 2 and re.search(message, err), err
    assert not (tmp_path / "index.html").exists()


def test_cli_takes_rs_negative_seeds_and_large_numpy_seeds_without_r(user_files, tmp_path, capsys, monkeypatch):
    _no_r(monkeypatch)
    code = main(_report_args(user_files, tmp_path / "neg") + ["--r-seed", "-2147483647"])
    assert code == 0 and "RRandom(-2147483647)" in (tmp_path / "neg" / "index.html").read_text(encoding="utf-8")
    code = main(_report_args(user_files, tmp_path / "big") + ["--seed", str(2 ** 40), "--no-r"])
    assert code == 0 and f"numpy random seed {2 ** 40}" in (tmp_path / "big" / "index.html").read_text(encoding="utf-8")
    capsys.readouterr()


@pytest.mark.parametrize("kw, exc, message", [
    ({"r_seed": 2 ** 31}, ValueError, r"r_seed must be in \[-2147483647, 2147483647\].*got 2147483648"),
    ({"seed": -1}, ValueError, "seed must be >= 0 .*got -1: pass r_seed for R's negative seeds"),
    ({"seed": 1.5}, TypeError, "seed must be an int or None, got 1.5"),
    ({"r_seed": "1"}, TypeError, "r_seed must be an int or None"),
])
def test_build_report_checks_seeds_before_any_work(tmp_path, monkeypatch, kw, exc, message):
    _no_methods(monkeypatch)
    with pytest.raises(exc, match=message):
        build_report(demo_cases()[:1], out_dir=tmp_path, methods=["FeatureImp"], compare_r=False, **kw)
    with pytest.raises(exc, match=message):
        build_mod.explain_case(demo_cases()[0], methods=["FeatureImp"], **kw)
    assert not (tmp_path / "index.html").exists()


def test_additive_model_says_there_is_no_interaction_above_noise(tmp_path, monkeypatch):
    """H statistics of an additive model are rounding noise (~1e-16): the report says so instead
    of naming a strongest interaction and drawing its 2-D ALE on a 1e-15 colour scale."""
    from sklearn.linear_model import LinearRegression

    _no_r(monkeypatch)
    rng = np.random.default_rng(4)
    d = pd.DataFrame(rng.normal(size=(80, 4)), columns=["a", "b", "c", "e"])
    d["y"] = d["a"] * 2 - d["b"] + rng.normal(size=80) * 0.1
    case = build_mod.Case("additive", "Additive", LinearRegression().fit(d.drop(columns="y"), d["y"]), d, "y")
    res = build_report([case], out_dir=tmp_path, methods=["interaction"], settings=Settings.small(), seed=1,
                       progress=False)
    html = res.path.read_text(encoding="utf-8")
    assert "No interaction above numerical noise" in html
    assert "additive-interaction-2way" not in _ids(html)


@pytest.mark.r
def test_comparison_says_why_iml_fails_and_shows_a_repeated_error_once(r, tmp_path):
    """A bool feature (iml takes no logical columns) and non-syntactic names (iml renames them):
    the notes say what to change, a repeated error is shown in full once, and the summary shows
    dashes where iml gave no numbers."""
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(2)
    d = pd.DataFrame({"a": rng.normal(size=60), "flag": rng.uniform(size=60) < 0.5})
    d["y"] = d["a"] + d["flag"] + rng.normal(size=60) * 0.1
    flagged = build_mod.Case("flags", "Flags", LinearRegression().fit(d[["a", "flag"]], d["y"]), d, "y")
    odd = d.assign(flag=rng.normal(size=60)).rename(columns={"a": "a b", "flag": "c-d"})
    spaced = build_mod.Case("spaced", "Spaced", LinearRegression().fit(odd[["a b", "c-d"]], odd["y"]), odd, "y")
    res = build_report([flagged, spaced], out_dir=tmp_path, methods=["FeatureImp", "FeatureEffect"],
                       settings=Settings.small(), r_seed=1, progress=False)
    text = html_lib.unescape(res.path.read_text(encoding="utf-8"))
    assert "iml takes no logical columns (flag" in text
    assert text.count("iml's data.frame() renames non-syntactic column names") == 1
    assert "failed with the same error as iml FeatureImp" in text
    assert ">—<" in text and ">NaN<" not in text.split("Max abs difference per method")[1].split("</table>")[0]
    from sklearn.linear_model import LogisticRegression

    z = d.assign(flag=rng.normal(size=60), y=(d["a"] > 0).astype(int))
    zero_one = build_mod.Case("zeroone", "0/1", LogisticRegression().fit(z[["a", "flag"]], z["y"]), z, "y")
    res = build_report([zero_one], out_dir=tmp_path / "z", methods=["TreeSurrogate"], settings=Settings.small(),
                       r_seed=1, progress=False)
    assert "fails for classes named by numbers such as 0 and 1" in html_lib.unescape(
        res.path.read_text(encoding="utf-8"))


def test_cli_takes_a_bool_target_of_a_regressor(tmp_path, capsys):
    """A True/False target is numbers (0/1), not text: the report is built (the new text-target
    check refused it)."""
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    df["t"] = df["a"] > 0
    df.to_csv(tmp_path / "d.csv", index=False)
    with open(tmp_path / "m.pkl", "wb") as fh:
        pickle.dump(Ridge().fit(df[["a", "b"]], df["t"].astype(float)), fh)
    assert main(["report", "--data", str(tmp_path / "d.csv"), "--target", "t", "--model", str(tmp_path / "m.pkl"),
                 "--out", str(tmp_path / "out"), "--quick", "--no-r", "--quiet", "--methods", "FeatureImp"]) == 0
    assert (tmp_path / "out" / "index.html").exists()
