"""The reference implementations the agreement tests compare with (pytrec_eval, ranx,
ir_measures, LightGBM, XGBoost; scipy, statsmodels and krippendorff for label agreement).

Without one of them an agreement test is skipped on a developer's machine, but fails when the
``CI`` environment variable is set: in CI a missing oracle must not turn a comparison into a
silent pass.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

#: The oracle packages and what installs them.
ORACLES = {
    "pytrec_eval": "pytrec-eval-terrier",
    "ranx": "ranx",
    "ir_measures": "ir_measures",
    "sklearn": "scikit-learn",
    "lightgbm": "lightgbm",
    "xgboost": "xgboost",
    "scipy": "scipy",
    "statsmodels": "statsmodels",
    "krippendorff": "krippendorff",
}


def require_oracle(module: str) -> ModuleType:
    """Import an oracle package; skip without it, or fail when ``CI`` is set.

    Parameters
    ----------
    module:
        ``"pytrec_eval"`` or ``"ranx"``.

    Returns
    -------
    module
        The imported package.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        message = (
            f"the oracle {module} is not installed (pip install {ORACLES.get(module, module)})."
        )
        if os.environ.get("CI"):
            pytest.fail(message + " CI is set, so this is a failure, not a skip.", pytrace=False)
        pytest.skip(message, allow_module_level=True)
