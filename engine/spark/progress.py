"""Progress of a Spark job group from the SparkContext's status tracker: stages and tasks
done out of those known so far (a later stage is known once its job is submitted).

``RunTracker`` does the same for a run on either kind of session: on a classic session its
jobs form a job group (``setJobGroup``, cancelled with ``cancelJobGroup``); on Spark Connect,
which has no SparkContext, its operations carry a tag (``addTag``, cancelled with
``interruptTag``) and the stages come from the server's progress reports
(``registerProgressHandler``; a server reports every couple of seconds, so short stages
may be missed)."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["GroupProgress", "group_progress", "RunTracker"]


@dataclass(frozen=True)
class GroupProgress:
    """Stages and tasks of a job group: done out of known."""

    stages_done: int = 0
    stages: int = 0
    tasks_done: int = 0
    tasks: int = 0

    @property
    def fraction(self) -> float:
        """Tasks done out of the tasks known (0 before any is known)."""
        return self.tasks_done / self.tasks if self.tasks else 0.0

    def text(self) -> str:
        """``stages 1/2 · tasks 3/8``."""
        return f"stages {self.stages_done}/{self.stages} · tasks {self.tasks_done}/{self.tasks}"


def group_progress(spark_context: Any, group: str, seen: dict[int, tuple[int, int]] | None = None
                   ) -> GroupProgress:
    """The progress of the jobs of ``group`` (``setJobGroup``). ``seen`` keeps each stage's last
    (completed, total) tasks across calls, so a stage the tracker has forgotten still counts.
    Never raises: a tracker that cannot answer leaves the counts as they were."""
    seen = {} if seen is None else seen
    try:
        tracker = spark_context.statusTracker()
        for job_id in tracker.getJobIdsForGroup(group):
            job = tracker.getJobInfo(job_id)
            for stage_id in (job.stageIds if job else []):
                info = tracker.getStageInfo(stage_id)
                if info is not None:
                    seen[stage_id] = (int(info.numCompletedTasks), int(info.numTasks))
    except Exception:  # noqa: BLE001 - progress must never break a run
        pass
    done = sum(d for d, _ in seen.values())
    total = sum(t for _, t in seen.values())
    stages_done = sum(1 for d, t in seen.values() if t and d >= t)
    return GroupProgress(stages_done, len(seen), done, total)


class RunTracker:
    """The jobs of one run, on a classic or a Spark Connect session: ``begin()`` in the thread
    that runs them, ``progress()`` and ``cancel()`` from any thread, ``end()`` when done."""

    def __init__(self, spark: Any, group: str, description: str = "CEP Studio run"):
        from engine.spark.session import is_connect

        self.spark = spark
        self.group = group
        self.description = description
        self.connect = is_connect(spark)
        self.seen: dict[int, tuple[int, int]] = {}
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def begin(self) -> None:
        """Mark the calling thread's jobs as this run's."""
        self._thread = threading.current_thread()
        if self.connect:
            self.spark.addTag(self.group)
            try:
                self.spark.registerProgressHandler(self._on_progress)
            except Exception:  # noqa: BLE001 - a server without progress reports
                pass
        else:
            self.spark.sparkContext.setJobGroup(self.group, self.description, interruptOnCancel=True)

    def end(self) -> None:
        """Stop listening (Spark Connect); the calling thread's later jobs are not this run's."""
        if self.connect:
            for undo in (lambda: self.spark.removeProgressHandler(self._on_progress),
                         lambda: self.spark.removeTag(self.group)):
                try:
                    undo()
                except Exception:  # noqa: BLE001
                    pass

    def _on_progress(self, stages: Any, inflight_tasks: int, operation_id: Any, done: bool) -> None:
        if threading.current_thread() is not self._thread:  # another run's operation
            return
        try:
            with self._lock:
                for st in stages or ():
                    self.seen[int(st.stage_id)] = (int(st.num_completed_tasks), int(st.num_tasks))
        except Exception:  # noqa: BLE001 - progress must never break a run
            pass

    def progress(self) -> GroupProgress:
        """Stages and tasks done out of those known so far."""
        if not self.connect:
            return group_progress(self.spark.sparkContext, self.group, self.seen)
        with self._lock:
            seen = dict(self.seen)
        done = sum(d for d, _ in seen.values())
        total = sum(t for _, t in seen.values())
        return GroupProgress(sum(1 for d, t in seen.values() if t and d >= t), len(seen), done, total)

    def cancel(self) -> None:
        """Cancel the run's jobs (never raises: the run is abandoned either way)."""
        try:
            if self.connect:
                self.spark.interruptTag(self.group)
            else:
                self.spark.sparkContext.cancelJobGroup(self.group)
        except Exception:  # noqa: BLE001
            pass
