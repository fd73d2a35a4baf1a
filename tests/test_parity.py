"""Every spec of parity/specs run in pyiml and in CRAN iml (live R), compared."""
import pytest

from parity.harness import load_specs, run_spec

SPECS = load_specs()


@pytest.mark.r
@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_parity_spec(r, spec):
    res = run_spec(spec)
    assert res.passed, (f"{spec.name}: max abs diff {res.max_abs_diff:.3g} (scale {res.scale:.3g}, "
                        f"tolerance {spec.tolerance:g}) {res.detail}")
    assert not spec.exact or res.max_abs_diff == 0.0   # (run_spec fails an exact spec with any difference)


def test_specs_well_formed():
    assert len(SPECS) >= 24
    assert sum(s.exact for s in SPECS) >= 80
    for s in SPECS:
        assert s.method and s.tolerance > 0
