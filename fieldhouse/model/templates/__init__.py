"""The built-in template catalog: modules a workspace can install with one call.

Together the templates use every field type in :data:`fieldhouse.model.fields.DATA_TYPES`. Field
configs are plain dicts shared by every caller: copy before changing (``template_diff`` always
returns fresh copies).
"""

from __future__ import annotations

from fieldhouse.model.schema import Template
from fieldhouse.model.templates.companies import COMPANIES
from fieldhouse.model.templates.contacts import CONTACTS
from fieldhouse.model.templates.deals import DEALS
from fieldhouse.model.templates.tasks import TASKS

__all__ = ["BUILTIN_TEMPLATES", "get_template"]

BUILTIN_TEMPLATES: tuple[Template, ...] = (CONTACTS, COMPANIES, DEALS, TASKS)

_BY_SLUG: dict[str, Template] = {t.slug: t for t in BUILTIN_TEMPLATES}


def get_template(slug: str) -> Template | None:
    """The built-in template with this template slug, or None."""
    return _BY_SLUG.get(slug)
