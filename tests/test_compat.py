"""pyiml keeps running on current numpy and pandas: their deprecations in pyiml's code fail the tests."""
import warnings

import pytest


@pytest.mark.parametrize("category", [DeprecationWarning, PendingDeprecationWarning, FutureWarning])
def test_deprecations_attributed_to_project_code_are_errors(category):
    # pyproject.toml [tool.pytest.ini_options] filterwarnings; numpy and pandas attribute a
    # deprecation to the module that called them
    for module in ("pyiml.data", "pyiml._algorithms.glmnet", "r_bridge.convert", "parity.harness"):
        with pytest.raises(category, match="deprecated"):
            warnings.warn_explicit("x is deprecated", category, "x.py", 1, module=module, registry={})
