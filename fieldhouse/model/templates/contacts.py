"""The built-in Contacts template: people, how to reach them and where they stand."""

from __future__ import annotations

from fieldhouse.model.schema import Template, TemplateField, TemplateView
from fieldhouse.model.templates._helpers import field_reference, module_reference_config, option

CONTACTS = Template(
    slug="contacts",
    name="Contacts",
    description="People you work with: contact details, company, lifecycle stage and ownership.",
    version="1.0.0",
    module_name="Contacts",
    module_slug="contacts",
    fields=(
        TemplateField(
            slug="first-name",
            name="FirstName",
            label="First name",
            data_type="text",
            config={"maxLength": 100, "isDisplayField": True},
            is_required=True,
        ),
        TemplateField(
            slug="last-name",
            name="LastName",
            label="Last name",
            data_type="text",
            config={"maxLength": 100},
        ),
        TemplateField(
            slug="full-name",
            name="FullName",
            label="Full name",
            data_type="formula",
            config={
                "formula": {
                    "expression": 'TRIM(CONCAT({first-name}, " ", {last-name}))',
                    "resultType": "text",
                    "referencedFields": ["first-name", "last-name"],
                }
            },
        ),
        TemplateField(
            slug="job-title",
            name="JobTitle",
            label="Job title",
            data_type="text",
            config={"maxLength": 150},
        ),
        TemplateField(
            slug="emails",
            name="Emails",
            label="Email addresses",
            data_type="email",
            config={
                "email": {
                    "allowMultiple": True,
                    "valueTypes": ["work", "personal"],
                    "defaultType": "work",
                },
                "emailConfig": {"validateEmail": True},
            },
        ),
        TemplateField(
            slug="phones",
            name="Phones",
            label="Phone numbers",
            data_type="phone",
            config={
                "phone": {
                    "allowMultiple": True,
                    "valueTypes": ["mobile", "work", "home"],
                    "defaultType": "mobile",
                },
                "phoneConfig": {"validateE164": True},
            },
        ),
        TemplateField(
            slug="address",
            name="Address",
            label="Address",
            data_type="address",
            config={
                "address": {
                    "allowMultiple": False,
                    "valueTypes": ["home", "work"],
                    "defaultType": "work",
                }
            },
        ),
        TemplateField(
            slug="company",
            name="Company",
            label="Company",
            data_type="reference",
            config=module_reference_config("companies", multi=False),
        ),
        TemplateField(
            slug="linkedin",
            name="Linkedin",
            label="LinkedIn profile",
            data_type="social_profile",
            config={"platforms": ["linkedin"], "allowMultiple": False},
        ),
        TemplateField(
            slug="avatar",
            name="Avatar",
            label="Photo",
            data_type="image",
            config={
                "image": {
                    "multiple": False,
                    "maxImages": 1,
                    "maxSizeKB": 2048,
                    "showInGrid": "thumbnail",
                }
            },
        ),
        TemplateField(
            slug="birthday",
            name="Birthday",
            label="Birthday",
            data_type="date",
            config={"format": "YYYY-MM-DD", "minDate": "1900-01-01"},
        ),
        TemplateField(
            slug="lifecycle",
            name="Lifecycle",
            label="Lifecycle stage",
            data_type="select",
            config={
                "options": [
                    option("subscriber", "Subscriber", "#94a3b8"),
                    option("lead", "Lead", "#3b82f6"),
                    option("qualified", "Qualified", "#8b5cf6"),
                    option("customer", "Customer", "#22c55e"),
                    option("churned", "Churned", "#ef4444"),
                ],
                "select": {"defaultOptionSlug": "lead"},
            },
        ),
        TemplateField(
            slug="tags",
            name="Tags",
            label="Tags",
            data_type="multi_select",
            config={
                "options": [
                    option("vip", "VIP", "#f59e0b"),
                    option("decision-maker", "Decision maker", "#6366f1"),
                    option("champion", "Champion", "#10b981"),
                    option("newsletter", "Newsletter", "#0ea5e9"),
                ],
                "multiSelect": {"defaultOptionSlugs": [], "maxItems": 10, "allowFreeForm": True},
            },
        ),
        TemplateField(
            slug="do-not-contact",
            name="DoNotContact",
            label="Do not contact",
            data_type="boolean",
            config={"default": False, "label": "Do not contact"},
        ),
        TemplateField(
            slug="owner",
            name="Owner",
            label="Owner",
            data_type="person",
            config={"person": {"allowMultiple": False, "includeInactiveUsers": False}},
        ),
        TemplateField(
            slug="notes",
            name="Notes",
            label="Notes",
            data_type="rich_text",
            config={
                "richText": {
                    "enabled": True,
                    "mode": "document",
                    "toolbarPreset": "standard",
                    "attachments": {
                        "allowImages": True,
                        "allowFiles": True,
                        "maxUploadSizeMB": 10,
                    },
                }
            },
        ),
    ),
    views=(
        TemplateView(
            slug="all",
            name="All contacts",
            config={
                "type": "table",
                "columns": ["full-name", "emails", "phones", "company", "lifecycle", "owner"],
                "sort": {"field": "last-name", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="by-lifecycle",
            name="By lifecycle stage",
            config={
                "type": "board",
                "groupBy": "lifecycle",
                "cardFields": ["full-name", "company", "owner"],
                "sort": {"field": "last-name", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="reachable",
            name="Reachable contacts",
            config={
                "type": "table",
                "columns": ["full-name", "emails", "phones", "tags"],
                "sort": {"field": "last-name", "direction": "asc"},
                "filter": {
                    "conjunction": "AND",
                    "conditions": [
                        {"fieldSlug": "do-not-contact", "operator": "eq", "value": False},
                        {"fieldSlug": "emails", "operator": "isNotNull"},
                    ],
                },
            },
        ),
    ),
    references=(field_reference("company", "companies", multi=False),),
)
