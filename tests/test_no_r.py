"""pyiml needs no R: importing and using it with rpy2 unavailable must work."""
import subprocess
import sys
import textwrap


def _run(code: str) -> subprocess.CompletedProcess:
    prelude = "import sys\nsys.modules['rpy2'] = None\n"  # any `import rpy2...` now fails
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)


def test_pyiml_imports_and_predicts_without_rpy2():
    res = _run("""
        import numpy as np, pandas as pd
        import pyiml, r_bridge
        X = pd.DataFrame({"a": np.arange(5.0), "b": np.ones(5)})
        p = pyiml.Predictor(data=X, predict_function=lambda nd: nd["a"] * 2)
        print(p.predict(X)["pred"].sum())
    """)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "20.0"


def test_r_missing_gives_clear_error():
    res = _run("""
        from r_bridge import session
        try:
            session.r_eval("1 + 1")
        except session.RNotAvailableError as e:
            print("ERR", e)
    """)
    assert res.returncode == 0, res.stderr
    assert "ERR r_bridge needs rpy2 and R" in res.stdout and "apt-get install python3-rpy2" in res.stdout


def test_wrong_r_home_gives_clear_error_not_a_dead_process(tmp_path):
    # an embedded R that cannot find its base package exits the process; the bridge checks first
    import os
    env = dict(os.environ, R_HOME=str(tmp_path))
    code = textwrap.dedent("""
        from r_bridge import session
        print(session.availability_problem())
        try:
            session.r_eval("1 + 1")
        except session.RNotAvailableError as e:
            print("ERR", e)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1][4:]
    assert f"R_HOME is {str(tmp_path)!r}, which is not an R installation" in lines[1]
    assert "`R RHOME`" in lines[1]
