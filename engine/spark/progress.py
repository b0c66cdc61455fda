"""Progress of a Spark job group from the SparkContext's status tracker: stages and tasks
done out of those known so far (a later stage is known once its job is submitted)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["GroupProgress", "group_progress"]


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
