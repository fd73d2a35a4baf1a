"""The code in the docs runs, and the migration guide's R and Python snippets give the same numbers.

Fenced ```python blocks of a page run in order in one namespace. In docs/migration.md, fenced
```r blocks run in order in one R environment (through ``r_bridge.session``); a Python block
with a line ``# compare: NAME`` is checked against the value of the R block right before it:
``NAME`` (a DataFrame or numbers) must equal that R value (a data.frame or numbers).
"""
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
COMPARE = re.compile(r"^#\s*compare:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$", re.M)


def code_blocks(path: Path):
    """(language, code, line number) of every fenced block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def _pages_with_python():
    pages = [ROOT / "README.md"] + sorted(DOCS.glob("*.md"))
    return [p for p in pages if any(lang == "python" for lang, _, _ in code_blocks(p))]


def _run_python(path: Path, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    ns = {"__name__": f"docs_{path.stem}"}
    for lang, code, line in code_blocks(path):
        if lang != "python":
            continue
        try:
            exec(compile(code, f"{path.name}:{line}", "exec"), ns)
        except Exception as exc:  # name the block that failed
            raise AssertionError(f"{path.name}, python block at line {line} failed: {type(exc).__name__}: {exc}") \
                from exc
    return ns


@pytest.mark.parametrize("page", _pages_with_python(), ids=lambda p: p.name)
def test_python_snippets_run(page, tmp_path, monkeypatch, request):
    if any(lang == "python" and "r_bridge" in code for lang, code, _ in code_blocks(page)):
        request.getfixturevalue("r")   # the page's r_bridge examples need R (skip, or fail under PYIML_REQUIRE_R=1)
    _run_python(page, tmp_path, monkeypatch)


def test_every_doc_page_exists_and_readme_links_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("migration.md", "methods.md", "parity.md", "differences.md"):
        assert (DOCS / name).is_file(), name
        assert f"docs/{name}" in readme, f"README does not link docs/{name}"
    first_block = code_blocks(ROOT / "README.md")[0]
    assert first_block[0] == "python" and len(first_block[1].strip().splitlines()) <= 10
    # exactly two set-up-and-run commands are named
    commands = set(re.findall(r"(?:`|^)make (\w+)", readme, re.M))
    assert commands == {"demo", "test"}, commands


def test_parity_page_is_the_generated_report():
    from parity.__main__ import DOCS_PREFACE
    from parity.harness import load_specs

    text = (DOCS / "parity.md").read_text(encoding="utf-8")
    title, _, rest = text.partition("\n")
    assert title == "# Parity report"
    assert rest.lstrip().startswith(DOCS_PREFACE)
    rows = re.findall(r"^\| ([\w.-]+) \| ", text, re.M)
    known = {s.name for s in load_specs()}
    assert rows and set(rows) - {"spec"} <= known, set(rows) - known


def test_migration_guide_covers_every_class_and_argument():
    text = (DOCS / "migration.md").read_text(encoding="utf-8")
    for cls in ("Predictor", "FeatureImp", "FeatureEffect", "FeatureEffects", "Interaction", "Shapley",
                "LocalModel", "TreeSurrogate"):
        assert f"## {cls}" in text, cls
    for r_arg, py_arg in [("n.repetitions", "n_repetitions"), ("x.interest", "x_interest"),
                          ("grid.size", "grid_size"), ("center.at", "center_at"), ("grid.points", "grid_points"),
                          ("predict.function", "predict_function"), ("batch.size", "batch_size"),
                          ("sample.size", "sample_size"), ("dist.fun", "dist_fun"), ("gower.power", "gower_power"),
                          ("kernel.width", "kernel_width"), ("tree.args", "tree_args"), ("class", "class_")]:
        assert f"`{r_arg}" in text and f"`{py_arg}" in text, (r_arg, py_arg)


# ---------------------------------------------------------------------------- R against Python
def _as_python(value):
    """An R value (data.frame, vector) as pandas / numpy."""
    from r_bridge import convert

    return convert.r2py(value)


def _equal(py, r, where):
    if isinstance(r, pd.DataFrame):
        assert isinstance(py, pd.DataFrame), f"{where}: Python value is {type(py).__name__}, R gave a data.frame"
        py, r = py.reset_index(drop=True), r.reset_index(drop=True)
        assert list(py.columns) == list(r.columns), f"{where}: columns {list(py.columns)} vs R {list(r.columns)}"
        assert len(py) == len(r), f"{where}: {len(py)} rows vs R {len(r)}"
        for c in r.columns:
            a, b = py[c], r[c]
            if pd.api.types.is_numeric_dtype(b.dtype) and not pd.api.types.is_bool_dtype(b.dtype):
                np.testing.assert_allclose(a.to_numpy(dtype=float, na_value=np.nan),
                                           b.to_numpy(dtype=float, na_value=np.nan), rtol=1e-9, atol=1e-12,
                                           err_msg=f"{where}: column {c}")
            else:
                assert a.astype(str).tolist() == b.astype(str).tolist(), f"{where}: column {c}"
        return
    if isinstance(r, dict):
        assert isinstance(py, dict) and list(py) == list(r), f"{where}: parts differ"
        for k in r:
            _equal(py[k], r[k], f"{where}[{k}]")
        return
    a = np.atleast_1d(np.asarray(py, dtype=float)).ravel()
    b = np.atleast_1d(np.asarray(r, dtype=float)).ravel()
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=where)


@pytest.mark.r
def test_migration_r_and_python_snippets_agree(r, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    page = DOCS / "migration.md"
    r.r_eval("assign('.pyiml_docs_env', new.env(parent = globalenv()), envir = globalenv())")
    ns = {"__name__": "docs_migration"}
    last_r = None
    n_compared = 0
    for lang, code, line in code_blocks(page):
        if lang == "r":
            try:
                last_r = (line, r.r_eval("eval(parse(text = src), envir = .pyiml_docs_env)", src=code))
            except Exception as exc:
                raise AssertionError(f"migration.md, R block at line {line} failed: {exc}") from exc
        elif lang == "python":
            exec(compile(code, f"migration.md:{line}", "exec"), ns)
            for name in COMPARE.findall(code):
                assert last_r is not None, f"python block at line {line} compares {name} but no R block precedes it"
                _equal(ns[name], _as_python(last_r[1]), f"migration.md line {line}: {name} vs R block line {last_r[0]}")
                n_compared += 1
                last_r = None
    assert n_compared >= 8
