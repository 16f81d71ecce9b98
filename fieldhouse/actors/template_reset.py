"""The steps of reset-to-template (:func:`fieldhouse.actors.template_ops.reset_to_template`):
the template a module resets to, its archived vendor fields revived, then its fields, views and
references made equal to the template as :func:`~fieldhouse.model.template_diff.plan_reset`
plans."""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from fieldhouse.actors.context import WriteContext
from fieldhouse.model.errors import Conflict
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, Template
from fieldhouse.model.template_diff import ResetPlan
from fieldhouse.model.templates import get_template


def template_of(module: ModuleDef) -> Template:
    """The template the module was installed from; 409 when there is none (any more)."""
    template = get_template(module.template_slug) if module.template_slug else None
    if template is not None:
        return template
    reason = (
        "was not installed from a template"
        if not module.template_slug
        else f"was installed from template {module.template_slug!r}, which no longer exists"
    )
    raise Conflict(
        f"Module {module.slug!r} {reason}; there is nothing to reset it to",
        data={"moduleId": module.module_id, "templateSlug": module.template_slug},
    )


async def revive_vendor_fields(ctx: WriteContext, schema: ModuleSchema) -> list[FieldDef]:
    """Bring the archived vendor-managed fields back first: the template has them live."""
    revived = [
        replace(f, archived_at=None, updated_at=ctx.now)
        for f in schema.archived_fields
        if f.vendor_managed
    ]
    if revived:
        await ctx.txn.upsert_fields(revived)
    return revived


@dataclass(frozen=True)
class ResetSteps:
    """A reset under way: the module as it stands (archived vendor fields revived), the plan
    that makes it equal the template, and the module as the template would install it."""

    schema: ModuleSchema
    template: Template
    plan: ResetPlan
    pristine: ModuleSchema

    async def fields(self, ctx: WriteContext) -> None:
        """Delete (with their values), update and insert the fields; updated and inserted
        fields take the template's order."""
        module_id, plan = self.schema.module.module_id, self.plan
        by_id = {f.field_id: f for f in self.schema.fields}
        if plan.delete_field_ids:
            await ctx.txn.delete_fields(module_id, plan.delete_field_ids)
            for field_id in plan.delete_field_ids:
                await ctx.txn.remove_field_values(module_id, by_id[field_id].slug)
        field_pos = {t.slug: i for i, t in enumerate(self.template.fields)}
        updated = [
            replace(
                by_id[field_id],
                name=t.name,
                label=t.label,
                data_type=t.data_type,
                config=merged,
                is_required=t.is_required,
                is_system=t.is_system,
                privacy_level=t.privacy_level,
                sort_order=field_pos[t.slug],
                updated_at=ctx.now,
            )
            for field_id, t, merged in plan.update_fields
        ]
        inserted_slugs = {t.slug for t in plan.insert_fields}
        inserted = [f for f in self.pristine.fields if f.slug in inserted_slugs]
        await ctx.txn.upsert_fields([*updated, *inserted])

    async def views(self, ctx: WriteContext) -> None:
        """Delete, update and insert the views, in the template's order."""
        plan = self.plan
        views = {v.view_id: v for v in self.schema.views}
        await ctx.txn.delete_views(self.schema.module.module_id, plan.delete_view_ids)
        new_views = [
            replace(views[view_id], name=t.name, config=copy.deepcopy(dict(t.config)))
            for view_id, t in plan.update_views
        ]
        inserted = {t.slug for t in plan.insert_views}
        new_views += [v for v in self.pristine.views if v.slug in inserted]
        view_pos = {t.slug: i for i, t in enumerate(self.template.views)}
        await ctx.txn.upsert_views([replace(v, sort_order=view_pos[v.slug]) for v in new_views])

    async def references(self, ctx: WriteContext, after: ModuleSchema) -> None:
        """Delete, update and insert the references; the source field id is resolved by slug
        in ``after``, the module read once the fields are in place."""
        module_id, plan = self.schema.module.module_id, self.plan
        vendor_ids = {f.slug: f.field_id for f in after.fields if f.vendor_managed}
        pristine_refs = {r.slug: r for r in self.pristine.references}
        await ctx.txn.delete_references(module_id, plan.delete_reference_ids)
        refs: list[ReferenceDef] = [
            replace(pristine_refs[t.slug], reference_id=ref_id)
            for ref_id, t in plan.update_references
        ]
        refs += [pristine_refs[t.slug] for t in plan.insert_references]
        await ctx.txn.upsert_references(
            [
                replace(
                    r,
                    source_field_id=vendor_ids.get(r.source_field_slug)
                    if r.source_field_slug
                    else None,
                )
                for r in refs
            ]
        )
