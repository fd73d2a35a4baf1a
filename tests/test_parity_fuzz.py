"""Random parity cases (``parity.fuzz``): pyiml against CRAN iml run live, on random data, a
random model both sides call and random arguments of every method, follow-up calls included.

A fixed set of seeds runs here (every method several times); ``python -m parity.fuzz --cases N``
runs more. A case passes when both sides give the same results (columns, rows, levels, labels,
values to the bit; with LocalModel, whose multinomial lasso is not bit-exact, to 1e-9 relative);
when iml fails the case must be one where pyiml deliberately differs (docs/differences.md), which
the generator avoids, so any R failure fails the test too.
"""
import warnings

import numpy as np
import pytest

from parity.fuzz import METHODS, make_case, make_chain, run_case, run_chain

pytestmark = pytest.mark.r

#: Seeds per method: 4 per method, drawn from the generator's own method choice being forced;
#: then the first seeds that draw ALE grid points, FeatureEffects' center_at and TreeSurrogate's
#: predict(type = "class"); then seeds whose data reach pyiml in pandas' nullable dtypes.
SEEDS = [(m, s) for m in METHODS for s in (11, 22, 33, 44)] + [
    ("FeatureEffect", 49), ("FeatureEffects", 26), ("TreeSurrogate", 8)] + [
    ("FeatureEffect", 9), ("Shapley", 9), ("LocalModel", 9), ("TreeSurrogate", 41)]


def _assert_matches(item, run, exact: bool) -> None:
    """Run a case or chain (``run``: run_case or run_chain), to the bit where ``exact``."""
    if exact:
        item.tolerance = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run(item)
    assert res.status == "pass", f"{item.recipe()}: {res.status} diff {res.max_abs_diff:.3g} {res.detail}"


@pytest.mark.parametrize("method,seed", SEEDS, ids=[f"{m}-{s}" for m, s in SEEDS])
def test_random_case_matches_iml(r, method, seed):
    case = make_case(seed, method)
    # both sides call one model: iml's numbers to the bit (LocalModel's multinomial lasso agrees
    # to about 1e-14: docs/differences.md)
    _assert_matches(case, run_case, exact=method != "LocalModel")


@pytest.mark.parametrize("seed", [74, 79])
def test_random_large_case_matches_iml(r, seed):
    """Cases of 4,096-12,000 rows (``--rows``): ALE of continuous features whose grid and intervals
    come from one bucket pass (1-D with seed 74, 2-D with 79), to the bit."""
    from pyiml._algorithms.grids import r_seq
    from pyiml._algorithms.rstats import bucket_order_statistics, type1_ranks

    case = make_case(seed, "FeatureEffect", rows=(4096, 12000))
    assert case.params["method"] == "ale" and len(case.data) >= 4096
    feats = case.params["feature"] if isinstance(case.params["feature"], list) else [case.params["feature"]]
    for f in feats:   # (the path these seeds are here for: the grid found through buckets)
        x = case.data[f].to_numpy(dtype=float)
        ranks = type1_ranks(x.size, r_seq(0.0, 1.0, case.params["grid_size"] + 1))
        assert bucket_order_statistics(x, ranks)[1] is not None
    _assert_matches(case, run_case, exact=True)


@pytest.mark.parametrize("seed", [3, 4, 9, 20, 24, 27])
def test_random_chain_under_one_seed_matches_iml(r, seed):
    """2-4 calls under one RRandom equal the same calls after one set.seed in R: every method
    leaves the generator where iml leaves it (these seeds mix PDP/ICE, FeatureEffects,
    FeatureImp, Shapley with explain(), Interaction and the methods that draw nothing)."""
    chain = make_chain(seed)
    _assert_matches(chain, run_chain, exact="LocalModel" not in [s.method for s in chain.steps])


#: ``--r-models`` cases: the model an R model fitted to the case's data, which pyiml calls through
#: r_bridge.RModel and R's iml directly. lm with a numeric x categorical interaction (FeatureEffect),
#: randomForest probabilities (FeatureImp, ce), rpart probabilities with nullable Int64 and string
#: columns (Shapley), multinom probabilities of one class (LocalModel), ranger regression through
#: predict(seed = 1) (Interaction), randomForest regression (TreeSurrogate), a logistic glm's one
#: probability against a two-class target (FeatureImp with f1), ranger probabilities (PDP) and
#: e1071::svm, which reads factor codes (PDP+ICE; LocalModel with explain and predict).
R_MODEL_SEEDS = [6500001, 6500012, 6500013, 6500022, 6500043, 6500051, 6550027, 6700021, 6700076, 6700109]


@pytest.mark.parametrize("seed", R_MODEL_SEEDS)
def test_random_case_with_an_r_model_matches_iml(r, seed):
    case = make_case(seed, r_models=True)
    assert case.model_text is not None and type(case.model).__name__ == "RModel"
    if case.method != "LocalModel":
        _assert_matches(case, run_case, exact=True)


@pytest.mark.parametrize("seed", [6510001, 6510008, 6510016, 6510017, 6510033])
def test_random_chain_with_an_r_model_matches_iml(r, seed):
    """Chains under one seed with an R model: randomForest probabilities (FeatureEffects ALE,
    Shapley, ...), ranger probabilities (TreeSurrogate, Shapley, FeatureImp), a logistic glm
    (FeatureEffects, Shapley), rpart class labels one-hot encoded (FeatureEffects, TreeSurrogate),
    e1071::svm (Interaction, Shapley, FeatureImp, LocalModel)."""
    chain = make_chain(seed, r_models=True)
    assert chain.model_text is not None
    _assert_matches(chain, run_chain, exact="LocalModel" not in [s.method for s in chain.steps])


def test_r_model_falls_back_where_no_classifier_fits(r):
    """A class target with a single class in the data (tiny data) gets no R model: the case keeps
    its own model (no R classifier fits one class)."""
    from parity.fuzz import RandomModel, _r_model

    case = make_case(6500019, r_models=True)
    assert case.model_text is None and isinstance(case.model, RandomModel)
    assert _r_model(np.random.default_rng(0), case.data, "y", True) is None


def test_r_model_falls_back_where_local_model_explains_a_constant(r):
    """A LocalModel of an R model whose explained output is the same for every row (seed 6570152:
    an rpart tree without a split, class c1's probability 0.08 everywhere) would meet a deliberate
    difference (pyiml refuses, iml fits rounding noise): the chain keeps its own model."""
    from parity.fuzz import RandomModel, _fit_class, _r_model

    chain = make_chain(6570152, r_models=True)
    assert chain.model_text is None and isinstance(chain.model, RandomModel)
    model, text, data = _r_model(np.random.default_rng([6570152, 31]), chain.data, "y", True,
                                 np.random.default_rng([6570152, 37]))
    assert text.startswith("rpart")
    X = data.drop(columns="y")
    assert _fit_class({"class_": "c1"}, model, X, local_model=True) is None
    assert _fit_class({"class_": "c1"}, model, X, local_model=False) == {"class_": "c1"}


def test_chain_failure_names_the_differing_calls():
    """A failing chain's detail names each call whose outputs differ (and only those)."""
    from parity.fuzz import _verdict

    chain = make_chain(3)
    py = {"c-1-FeatureImp": [1.0, 2.0], "c-2-Shapley": [3.0, 4.0 + 1e-6]}
    r = {"c-1-FeatureImp": [1.0, 2.0], "c-2-Shapley": [3.0, 4.0]}
    res = _verdict(chain.steps[0], py, r, None, None, 0.0, "chain")
    assert res.status == "FAIL"
    assert "differing: c-2-Shapley (diff 1e-06)" in res.detail and "FeatureImp" not in res.detail
    assert _verdict(chain.steps[0], r, r, None, None, 0.0, "chain").status == "pass"


def test_the_added_seeds_draw_their_branches():
    """The seeds added to SEEDS exercise the fourth stream's draws and the fifth stream's nullable
    dtypes (and keep doing so)."""
    fe = make_case(49, "FeatureEffect").params
    assert fe["method"] == "ale" and "grid_points" in fe and "grid_size" not in fe
    assert "center_at" in make_case(26, "FeatureEffects").params
    assert make_case(8, "TreeSurrogate").calls[0]["args"].get("type") == "class"
    kinds = {str(c.data[x].dtype) for m, sd in [("FeatureEffect", 9), ("Shapley", 9), ("LocalModel", 9),
                                                 ("TreeSurrogate", 41)]
             for c in [make_case(sd, m)] for x in c.nullable}
    assert kinds == {"float64", "int64", "object"}     # -> Float64, Int64, string on pyiml's side
