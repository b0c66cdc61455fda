"""What the Run page's AppTests share: waiting for a run that outlived the page's first answer."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def finish_run(at: AppTest, timeout: float = 60) -> AppTest:
    """A run still going when the script answered shows progress; wait for it, then rerun the
    page (as the progress fragment does) so that it shows the results."""
    job = at.session_state["run_job"] if "run_job" in at.session_state else None
    if job is not None:
        assert job.wait(timeout), "the run did not finish"
        at.run(timeout=timeout)
    return at
