"""The built-in Tasks template: to-dos with due dates, owners, sub-tasks and deal links."""

from __future__ import annotations

from fieldhouse.model.schema import Template, TemplateField, TemplateView
from fieldhouse.model.templates._helpers import field_reference, module_reference_config, option

TASKS = Template(
    slug="tasks",
    name="Tasks",
    description="Work to be done: due dates, priority, assignee, sub-tasks and the deal it serves.",
    version="1.0.0",
    module_name="Tasks",
    module_slug="tasks",
    fields=(
        TemplateField(
            slug="title",
            name="Title",
            label="Title",
            data_type="text",
            config={"maxLength": 255, "isDisplayField": True},
            is_required=True,
        ),
        TemplateField(
            slug="task-type",
            name="TaskType",
            label="Type",
            data_type="select",
            config={
                "options": [
                    option("call", "Call", "#0ea5e9"),
                    option("meeting", "Meeting", "#8b5cf6"),
                    option("follow-up", "Follow-up", "#f59e0b"),
                    option("to-do", "To-do", "#94a3b8"),
                ],
                "select": {"defaultOptionSlug": "to-do"},
            },
        ),
        TemplateField(
            slug="task-number",
            name="TaskNumber",
            label="Task number",
            data_type="autonumber",
            config={
                "autonumber": {
                    "formatType": "both",
                    "prefix": "TASK-",
                    "suffix": "-T",
                    "padding": 4,
                    "startFrom": 1,
                    "nextValue": 1,
                    "typeFieldSlug": "task-type",
                    "sequenceByType": {
                        "call": {"prefix": "CALL-", "sequenceName": "calls"},
                        "meeting": {"prefix": "MTG-", "sequenceName": "meetings"},
                        "follow-up": {"prefix": "FUP-"},
                    },
                }
            },
        ),
        TemplateField(
            slug="status",
            name="Status",
            label="Status",
            data_type="select",
            config={
                "options": [
                    option("todo", "To do", "#94a3b8"),
                    option("in-progress", "In progress", "#3b82f6"),
                    option("blocked", "Blocked", "#ef4444"),
                    option("done", "Done", "#22c55e"),
                ],
                "select": {"defaultOptionSlug": "todo"},
            },
            is_required=True,
        ),
        TemplateField(
            slug="priority",
            name="Priority",
            label="Priority",
            data_type="select",
            config={
                "options": [
                    option("low", "Low", "#94a3b8"),
                    option("medium", "Medium", "#f59e0b"),
                    option("high", "High", "#f97316"),
                    option("urgent", "Urgent", "#ef4444"),
                ],
                "select": {"defaultOptionSlug": "medium"},
            },
        ),
        TemplateField(
            slug="due-date",
            name="DueDate",
            label="Due date",
            data_type="date",
            config={"format": "YYYY-MM-DD"},
        ),
        TemplateField(
            slug="due-time",
            name="DueTime",
            label="Due time",
            data_type="time",
            config={"time": {"format12h": False}},
        ),
        TemplateField(
            slug="days-until-due",
            name="DaysUntilDue",
            label="Days until due",
            data_type="formula",
            config={
                "formula": {
                    "expression": "IF(ISBLANK({due-date}), 0, DATEDIFF(TODAY(), {due-date}))",
                    "resultType": "number",
                    "decimalPlaces": 0,
                    "referencedFields": ["due-date"],
                }
            },
        ),
        TemplateField(
            slug="assignee",
            name="Assignee",
            label="Assignee",
            data_type="person",
            config={"person": {"allowMultiple": False, "includeInactiveUsers": False}},
        ),
        TemplateField(
            slug="related-deal",
            name="RelatedDeal",
            label="Related deal",
            data_type="reference",
            config=module_reference_config("deals", multi=False, allow_inline_create=False),
        ),
        TemplateField(
            slug="estimate",
            name="Estimate",
            label="Time estimate",
            data_type="duration",
            config={"duration": {"format": "hm"}},
        ),
        TemplateField(
            slug="done",
            name="Done",
            label="Done",
            data_type="boolean",
            config={"default": False, "label": "Completed"},
        ),
        TemplateField(
            slug="description",
            name="Description",
            label="Description",
            data_type="textarea",
            config={"maxLength": 5000, "rows": 6},
        ),
        TemplateField(
            slug="parent-task",
            name="ParentTask",
            label="Parent task",
            data_type="parent_record",
            config={"parentRecord": {"maxDepth": 3, "preventCycles": True}},
        ),
    ),
    views=(
        TemplateView(
            slug="all",
            name="All tasks",
            config={
                "type": "table",
                "columns": [
                    "task-number",
                    "title",
                    "status",
                    "priority",
                    "due-date",
                    "assignee",
                    "related-deal",
                ],
                "sort": {"field": "due-date", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="by-status",
            name="By status",
            config={
                "type": "board",
                "groupBy": "status",
                "cardFields": ["title", "priority", "due-date", "assignee"],
                "sort": {"field": "due-date", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="open",
            name="Open tasks",
            config={
                "type": "table",
                "columns": ["title", "priority", "due-date", "due-time", "assignee"],
                "sort": {"field": "due-date", "direction": "asc"},
                "filter": {
                    "conjunction": "AND",
                    "conditions": [{"fieldSlug": "done", "operator": "eq", "value": False}],
                },
            },
        ),
    ),
    references=(
        field_reference("related-deal", "deals", multi=False),
        field_reference("parent-task", "tasks", multi=False),
    ),
)
