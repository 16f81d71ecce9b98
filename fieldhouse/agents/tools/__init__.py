"""The agent's tools: records, e-mail, reminders, outreach, social, landing pages."""

from __future__ import annotations

from fieldhouse.agents.tools import email, outreach, pages, records, reminders, social
from fieldhouse.agents.tools.base import Tool

ALL_TOOLS: tuple[Tool, ...] = (
    *records.TOOLS,
    *email.TOOLS,
    *reminders.TOOLS,
    *outreach.TOOLS,
    *social.TOOLS,
    *pages.TOOLS,
)

__all__ = ["ALL_TOOLS", "Tool"]
