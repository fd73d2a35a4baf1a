"""``r_as_character`` against R's ``as.character()`` and ``r_make_names`` against ``make.names()``,
run live, plus fixed expectations."""
import math
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyiml._algorithms.rformat import r_as_character, r_make_names, r_make_unique

# Values whose R output is documented in the spec (§1) or was checked in R 4.2.2.
KNOWN = [
    (100000.0, "1e+05"), (0.0001, "1e-04"), (0.00012, "0.00012"), (1200000.0, "1200000"),
    (1 / 3, "0.333333333333333"), (0.1 + 0.2, "0.3"), (2.31, "2.31"), (1e15, "1e+15"),
    (123456789012345678.0, "123456789012345680"), (-0.0, "0"), (0.0, "0"), (14.37, "14.37"),
    (6.951, "6.951"), (-2.5, "-2.5"), (1e300, "1e+300"), (1e-300, "1e-300"),
    (5e-324, "4.94065645841247e-324"), (9.9999999999999995, "10"), (0.999999999999999944, "1"),
    (8.096507856710994e-11, "8.096507856711e-11"), (6.972103328203105e-09, "6.9721033282031e-09"),
    (float("nan"), "NaN"), (float("inf"), "Inf"), (float("-inf"), "-Inf"),
]


def _r_chars(r, values):
    ro = r.robjects()
    return [str(s) for s in r.r_eval("as.character(x)", x=ro.FloatVector([float(v) for v in values]))]


# ------------------------------------------------------------------------------------------
# without R
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", KNOWN)
def test_known_values(value, expected):
    assert r_as_character(value) == expected


def test_vectorised_shapes_and_types():
    out = r_as_character(np.array([[1e5, 0.5], [3.0, -1e-4]]))
    assert out.shape == (2, 2) and out.dtype == object
    assert out.tolist() == [["1e+05", "0.5"], ["3", "-1e-04"]]
    assert r_as_character([1.0, 2.5]).tolist() == ["1", "2.5"]
    # R integers and logicals
    assert r_as_character(100000) == "100000"
    assert r_as_character(np.array([100000, -3], dtype=np.int64)).tolist() == ["100000", "-3"]
    assert r_as_character(np.array([True, False])).tolist() == ["TRUE", "FALSE"]
    # object arrays: NA stays missing, big Python ints print plainly
    assert r_as_character(np.array([None, 1e5, 7, 10**20], dtype=object)).tolist() == [None, "1e+05", "7", str(10**20)]
    with pytest.raises(TypeError):
        r_as_character(np.array(["a"]))


def test_one_by_one_formatting_equals_the_array_path(monkeypatch):
    """A few values are formatted one at a time (scalar arithmetic), many with array calls; both
    give the same strings (the array path is the one checked against R on large batches)."""
    from pyiml._algorithms import rformat

    rng = np.random.default_rng(0)
    vals = [v for v, _ in KNOWN] + [99999.9999999999999, 1.7976931348623157e308, 2.0 ** 53, 1e22, 1e23, 1e16]
    vals += list(rng.normal(size=3000) * 10.0 ** rng.integers(-320, 300, size=3000))
    vals += [round(float(a), int(b)) for a, b in zip(rng.normal(size=2000) * 1000, rng.integers(0, 16, size=2000))]
    vals += [float(f"{m}e{e}") for m in ("9.99999999999999", "9.999999999999995", "2.5", "999999999999999.5", "0.95")
             for e in range(-30, 30)]
    x = np.array(vals, dtype=float)
    one_by_one = [rformat._format_doubles(x[i:i + 1])[0] for i in range(x.size)]
    monkeypatch.setattr(rformat, "_SCALAR_MAX", -1)
    assert rformat._format_doubles(x) == one_by_one


# ------------------------------------------------------------------------------------------
# against R
# ------------------------------------------------------------------------------------------

@pytest.mark.r
def test_known_values_in_r(r):
    assert _r_chars(r, [v for v, _ in KNOWN]) == [e for _, e in KNOWN]


@pytest.mark.r
def test_large_random_batch(r):
    rng = np.random.default_rng(20240601)
    vals = np.concatenate([
        rng.normal(size=8000) * 10.0 ** rng.integers(-20, 20, 8000),
        np.round(rng.normal(size=3000) * 10.0 ** rng.integers(0, 16, 3000)),
        rng.uniform(size=3000),
        np.array([round(v, int(k)) for v, k in zip(rng.uniform(-100, 100, 3000), rng.integers(0, 16, 3000))]),
        np.array([float("1e%d" % k) for k in range(-323, 309)]),
        np.array([float("1e%d" % k) for k in range(-300, 300)]) * 9.999999999999999,
        np.array([float("%de%d" % (m, k)) for m in (1, 5, 9) for k in range(-30, 30)]) * (1 + 2 ** -52),
        rng.standard_cauchy(3000),
        np.frombuffer(rng.bytes(8 * 8000), dtype=np.float64),
    ])
    vals = vals[np.isfinite(vals)]
    got = r_as_character(vals)
    want = _r_chars(r, vals)
    bad = [(repr(v), g, w) for v, g, w in zip(vals, got, want) if g != w]
    assert not bad, bad[:10]


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
ints_as_doubles = st.integers(min_value=-(10 ** 18), max_value=10 ** 18).map(float)
tiny = st.floats(min_value=5e-324, max_value=1e-290) | st.floats(min_value=-1e-290, max_value=-5e-324)
huge = st.floats(min_value=1e290, max_value=1.7976931348623157e308) | st.floats(min_value=-1.7976931348623157e308,
                                                                                max_value=-1e290)
rounded = st.tuples(st.floats(min_value=-1e7, max_value=1e7), st.integers(min_value=0, max_value=16)).map(
    lambda t: round(t[0], t[1]))
sums = st.tuples(rounded, rounded).map(lambda t: t[0] + t[1])
specials = st.sampled_from([float("nan"), float("inf"), float("-inf"), 0.1 + 0.2, 1e5, 1e-4, 1e15,
                            123456789012345678.0, -0.0])
any_double = finite | ints_as_doubles | tiny | huge | rounded | sums | specials


@pytest.mark.r
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(any_double, min_size=1, max_size=60))
def test_hypothesis_against_r(r, values):
    got = list(r_as_character(np.array(values, dtype=float)))
    want = _r_chars(r, values)
    assert got == want, [(repr(v), g, w) for v, g, w in zip(values, got, want) if g != w]
    for v, g in zip(values, got):
        if math.isfinite(v) and v != 0:
            # 15 significant digits: the text reads back within rounding of the value
            assert abs(Decimal(g) - Decimal(v)) <= Decimal("1e-14") * abs(Decimal(v))


# ------------------------------------------------------------------------------------------
# make.names / make.unique
# ------------------------------------------------------------------------------------------

NAMES = ["0", "1 x", "", "if", "in", "NA", "NA_real_", "TRUE", ".2", "._", ".a", ".", "...", "..1", "_a",
         "a-b", "a$b", "x y z", "ä", "é1", "\u00b2", "a\u00b2", "a\u00b7b", "a.b", "a", "a", "a.1", "a", "b",
         "b.1", "b", "setosa", "Sepal.Length", "1", "2", "X1", "X1", "class 0", "0.5", "-1"]


def test_make_names_known():
    assert r_make_names(["0", "1 x", "", "if", ".2", "_a", "a-b", "ä", "\u00b2"]) == \
        ["X0", "X1.x", "X", "if.", "X.2", "X_a", "a.b", "ä", "X."]
    assert r_make_unique(["a", "a", "a.1", "a", "b", "b.1", "b"]) == ["a", "a.2", "a.1", "a.3", "b", "b.1", "b.2"]
    assert r_make_names(["a", "a"], unique=True) == ["a", "a.1"]


@pytest.mark.r
@pytest.mark.parametrize("unique", [False, True])
def test_make_names_in_r(r, unique):
    ro = r.robjects()
    want = [str(s) for s in r.r_eval("make.names(x, unique = u)", x=ro.StrVector(NAMES), u=unique)]
    assert r_make_names(NAMES, unique=unique) == want


@pytest.mark.r
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(alphabet="ab1._ -$.X\u00e4\u00b2", max_size=4), min_size=1, max_size=12))
def test_make_names_hypothesis_against_r(r, names):
    ro = r.robjects()
    want = [str(s) for s in r.r_eval("make.names(x, unique = TRUE)", x=ro.StrVector(names))]
    assert r_make_names(names, unique=True) == want


# ------------------------------------------------------------------------------------------
# print(): numbers, data frames and the methods' printouts
# ------------------------------------------------------------------------------------------

def test_print_formats_known_values():
    from pyiml._algorithms.rprint import r_format_real, r_print_frame, r_sprintf_f

    # one layout per column: fixed with the decimals the value needing most has (7 significant
    # digits), unless scientific is narrower; the probe's cases where pandas lost digits
    assert r_format_real([7.09873e-06, 1e4, 0.0709873]) == ["7.09873e-06", "1.00000e+04", "7.09873e-02"]
    assert r_format_real([0.47221473, 0.0]) == ["0.4722147", "0.0000000"]
    assert r_format_real([0.0, 3.0, 7.0, 10.0]) == [" 0", " 3", " 7", "10"]
    assert r_format_real([1.5, float("nan"), float("inf")]) == ["1.5", " NA", "Inf"]
    assert r_format_real([1.5, float("nan")], missing=[False, False]) == ["1.5", "NaN"]
    assert [r_sprintf_f(v) for v in (float("inf"), float("-inf"), float("nan"), None, 2.5)] == \
        ["Inf", "-Inf", "NaN", "NA", "2.500000"]
    df = pd.DataFrame({"a": [1.5, None], "s": ["x", None], "i": pd.array([1, None], dtype="Int64"), "b": [True, False]})
    assert r_print_frame(df) == "    a    s  i     b\n0 1.5    x  1  TRUE\n1  NA <NA> NA FALSE"


@pytest.mark.r
def test_print_of_numbers_and_frames_is_rs(r):
    from r_bridge import convert
    from pyiml._algorithms.rprint import r_format_real, r_print_frame

    rng = np.random.default_rng(11)
    bad = []
    for t in range(300):      # format(x, digits = 7): magnitudes, rounding, zeros, infinities
        x = rng.normal(size=int(rng.integers(1, 6))) * 10.0 ** rng.integers(-30, 30)
        if t % 4 == 0:
            x = np.round(x, int(rng.integers(0, 6)))
        if t % 7 == 0:
            x[0] = rng.choice([np.inf, -np.inf, 0.0, -0.0, 1e300, -1e-300, 99999.99999, 9.9999999])
        want = [str(s) for s in r.r_eval("format(x, digits = 7)", x=r.robjects().FloatVector(x.tolist()))]
        if r_format_real(x) != want:
            bad.append((x.tolist(), r_format_real(x), want))
    assert not bad, bad[:5]

    def column(n):
        kind = int(rng.integers(0, 7))
        if kind == 0:
            return rng.normal(size=n) * 10.0 ** rng.integers(-8, 9)
        if kind == 1:
            x = rng.normal(size=n) * 10.0 ** rng.integers(-5, 6, n)
            x[rng.random(n) < 0.3] = np.nan
            return x
        if kind == 2:
            return rng.integers(-1000, 1000, n)
        if kind == 3:
            return pd.Categorical(rng.choice(["a", "bb", "ccc long"], n))
        if kind == 4:
            return rng.random(n) < 0.5
        if kind == 5:
            return rng.choice([0.0, 1e5, 123456.7, 1e-20, 3.0, 1e15, 99999.99999], n)
        return rng.choice(["x", "yy", None], n).astype(object)
    for t in range(60):       # print(<data.frame>): widths, NA, blocks of columns, 0 rows
        n, p = int(rng.integers(0 if t % 10 == 0 else 1, 7)), int(rng.integers(1, 14))
        df = pd.DataFrame({f"c{j}{'x' * int(rng.integers(0, 12))}": column(n) for j in range(p)})
        df.index = range(1, n + 1)      # R's row names
        want = "\n".join(r.r_eval("d[] <- lapply(d, function(x) { if (is.double(x)) x[is.nan(x)] <- NA; x }); "
                                  "capture.output(print(d))", d=convert.py2r(df)))
        assert r_print_frame(df) == want, (df, want)
    # getOption("max.print"): the first max %/% ncol rows, then how many were omitted
    df = pd.DataFrame({"a": np.arange(30) * 1.5, "b": np.arange(30)}, index=range(1, 31))
    want = "\n".join(r.r_eval("options(max.print = 25); o <- capture.output(print(d)); options(max.print = 99999); o",
                              d=convert.py2r(df)))
    assert r_print_frame(df, max_print=25) == want and want.endswith("-- omitted 18 rows ]")


@pytest.mark.r
def test_methods_print_as_iml_does(r):
    """repr() is R's print() text (cat's spaces, blank lines, the head of the results as R
    prints it), but for pyiml's 0-based row labels."""
    import re

    from pyiml import FeatureEffect, FeatureImp, Predictor, RRandom, Shapley
    from r_bridge import iml as riml

    rng = np.random.default_rng(3)
    d = pd.DataFrame({"a": rng.normal(size=40), "b": rng.uniform(size=40) * 1e-5,
                      "g": pd.Categorical(rng.choice(["u", "v"], 40))})

    def f(x):
        return x["a"] * 2 + x["b"] * 1e4 + (x["g"] == "u") * 0.5 + 1e-6 * x["a"] ** 2

    d["y"] = f(d) + rng.normal(scale=0.1, size=40)
    p, rp = Predictor(data=d, y="y", predict_function=f), riml.r_predictor(d, y="y", predict_function=f)
    x = d.drop(columns="y").iloc[[4]]
    pairs = [(FeatureImp(p, loss="mae", n_repetitions=3, random_state=RRandom(5)),
              riml.iml("FeatureImp", rp, seed=5, loss="mae", n_repetitions=3)),
             (FeatureEffect(p, "b", method="ale", grid_size=5), riml.iml("FeatureEffect", rp, feature="b", method="ale",
                                                                         grid_size=5)),
             (FeatureEffect(p, "g", method="pdp+ice"), riml.iml("FeatureEffect", rp, feature="g", method="pdp+ice")),
             (Shapley(p, x_interest=x, sample_size=10, random_state=RRandom(2)),
              riml.iml("Shapley", rp, seed=2, x_interest=x, sample_size=10))]
    for py, ro in pairs:
        want = "\n".join(r.r_eval("capture.output(print(o))", o=ro.r_object))
        head, rows = repr(py).split("Head of results:\n")
        # pyiml's row labels are 0-based: R's are one more (one digit here, so the widths agree)
        rows = re.sub(r"(?m)^(\d) ", lambda m: f"{int(m.group(1)) + 1} ", rows)
        assert head + "Head of results:\n" + rows == want, type(py).__name__


@pytest.mark.r
def test_print_escapes_and_pads_text_as_r(r):
    """print(<data.frame>) shows text through encodeString (a TreeSurrogate's .path holds a
    newline) and pads it by its width on screen."""
    from r_bridge import convert
    from pyiml._algorithms.rprint import r_print_frame

    texts = ["x\ny", "t\tb", "back\\slash", 'q"uote', "a\x01b", "c\x7fd", "e\rf", "g\bh", "i\fj", "k\vl",
             "bell\a", "q\x85r", "\u4e2d\u6587", "s\u00e9", "o\u00a0p", "e\u0301", "plain",
             "a\u2028b", "p\u2029q", "c\u0378d", "\U0002fffe", "x\u00ady", "\u1100\u1161\u11a8"]
    df = pd.DataFrame({"s": texts, "f": pd.Categorical(texts[::-1]), "n\u4e2d\tm": np.arange(len(texts))},
                      index=range(1, len(texts) + 1))
    want = "\n".join(r.r_eval("capture.output(print(d))", d=convert.py2r(df)))
    assert "x\\ny" in want and "\u4e2d\u6587" in want     # the escapes and the wide text reached R
    assert r_print_frame(df) == want
    empty = df.iloc[:0]
    assert r_print_frame(empty) == "\n".join(r.r_eval("capture.output(print(d))", d=convert.py2r(empty)))


def test_tree_surrogate_repr_keeps_one_line_per_row():
    from pyiml import Predictor, TreeSurrogate

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    p = Predictor(predict_function=lambda d: (d["a"] > 0) * 3.0 + (d["b"] > 0.5), data=X)
    text = repr(TreeSurrogate(p, maxdepth=2))
    rows = [ln for ln in text.splitlines() if "&" in ln]
    assert rows and all("\\n" in ln and ln.split()[0].isdigit() for ln in rows), text
