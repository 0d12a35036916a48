"""The rolling summary: what is due, the chunked run through the summary model (or a digest
without one), the relevance filter of ``context(query=…)``, and the cron scheduler."""

from ._relevance import select_relevant
from ._runner import TALLY, RunTally, SummaryRunner
from ._scheduler import CronRunner

__all__ = ["TALLY", "CronRunner", "RunTally", "SummaryRunner", "select_relevant"]
