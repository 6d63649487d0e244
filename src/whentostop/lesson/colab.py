"""What a notebook needs on Google Colab that Jupyter does not: its first code cell calls
`widgets_on_colab()` right after installing the package there.

Colab's own widget manager draws only ipywidgets 7's widgets. The explorers are ipywidgets 8 and
anywidget widgets: Colab draws them once its custom widget manager is on, which loads the widgets'
code from a CDN (`google.colab.output.enable_custom_widget_manager()`, Colab's documented opt-in for
widgets outside ipywidgets 7; anywidget turns it on by itself only when one of its own widgets is
displayed first, and the explorers' outer box is an ipywidgets one). Anywhere else nothing happens.
"""

from __future__ import annotations

import sys

from ..i18n import _
from .content import said


def on_colab() -> bool:
    """Whether this kernel is Colab's (its kernel imports `google.colab` before any cell runs)."""
    return "google.colab" in sys.modules


def widgets_on_colab() -> bool:
    """On Colab, turn on its custom widget manager and return True; elsewhere do nothing and
    return False. If Colab had loaded an ipywidgets older than 8 before the package was
    installed, say how to restart so that the new one is used."""
    if not on_colab():
        return False
    from google.colab import output  # type: ignore[import-not-found]

    output.enable_custom_widget_manager()
    loaded = sys.modules.get("ipywidgets")
    version = str(getattr(loaded, "__version__", "8"))
    if loaded is not None and version.split(".")[0].isdigit() and int(version.split(".")[0]) < 8:
        print(_(said("shared", "colab_old_ipywidgets")).format(version=version))
    return True
