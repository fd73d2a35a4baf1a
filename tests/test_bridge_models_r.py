"""R models of mixed teams through r_bridge.RModel: iml's ``type`` semantics for glm, and the
glm link-scale trap in FeatureImp. Whole results of lm/glm/rpart and scikit-learn pipelines
are compared with iml by the parity specs ``parity/specs/*_{lm_fac,glm,rpart,sk_mixed}*.toml``.
"""
import numpy as np
import pandas as pd
import pytest

from parity import fixtures

pytestmark = pytest.mark.r


def _iml_predict(r, model, data, type_=None):
    """iml's own Predictor on the R model (R: Predictor$new(model, data, type = type)$predict(data))."""
    from r_bridge import convert

    X = convert.py2r(data)
    if type_ is None:
        return convert.r2py(r.r_eval("iml::Predictor$new(m, data = d)$predict(d)", m=model.r_object, d=X))
    return convert.r2py(r.r_eval("iml::Predictor$new(m, data = d, type = t)$predict(d)", m=model.r_object, d=X,
                                 t=r.robjects().StrVector([type_])))


@pytest.mark.parametrize("data_name", ["binary", "binary_factor"])
def test_glm_type_is_iml_type(r, data_name):
    """RModel(type=None) gives predict(model, newdata) — a glm's link, as iml's Predictor does
    without type; type='response' the probabilities; each is iml's column for column."""
    from r_bridge import RModel, convert

    d = fixtures.dataset(data_name)
    X = d.drop(columns="y")
    fit = r.r_eval("glm(y ~ x1 + x2 + g, family = binomial, data = d)", d=convert.py2r(d))
    link = convert.r2py(r.r_eval("data.frame(v = unname(predict(m, d, type = 'link')))", m=fit,
                                 d=convert.py2r(X)))["v"].to_numpy()
    for type_, want in ((None, link), ("link", link), ("response", 1 / (1 + np.exp(-link)))):
        m = RModel(fit, type=type_)
        got = m._pyiml_predict(X)
        pd.testing.assert_frame_equal(got, _iml_predict(r, m, X, type_))
        assert list(got.columns) == ["pred"]
        np.testing.assert_allclose(got["pred"].to_numpy(), want, rtol=1e-14, atol=1e-15)
    assert m.target == "y"


def test_glm_link_with_logloss_is_a_clear_error(r):
    """iml fails deep inside (Metrics' logLoss of link values is Inf, the importances NaN);
    pyiml raises a ValueError naming type='response'; on the response scale both agree exactly."""
    import pyiml
    from r_bridge import RError, RWarning
    from r_bridge import iml as riml

    d = fixtures.dataset("binary")
    link, response = fixtures.model_pair("glm_link"), fixtures.model_pair("glm_response")
    with pytest.raises(RError, match="NaN"), pytest.warns(RWarning, match="NaNs produced"):
        riml.iml("FeatureImp", riml.r_predictor(data=d, y="y", **link.r), seed=1, loss="logLoss")
    with pytest.raises(ValueError, match="type='response'"):
        pyiml.FeatureImp(pyiml.Predictor(data=d, y="y", **link.py), "logLoss", random_state=pyiml.RRandom(1))
    got = pyiml.FeatureImp(pyiml.Predictor(data=d, y="y", **response.py), "logLoss", n_repetitions=2,
                           random_state=pyiml.RRandom(1))
    want = riml.iml("FeatureImp", riml.r_predictor(data=d, y="y", **response.r), seed=1, loss="logLoss",
                    n_repetitions=2)
    pd.testing.assert_frame_equal(got.results.reset_index(drop=True), want.results, check_exact=True,
                                  check_dtype=False, check_categorical=False)
    assert got.original_error == want.field("original.error")
