"""The built-in Companies template: organisations, their hierarchy and the value they bring."""

from __future__ import annotations

from fieldhouse.model.schema import Template, TemplateField, TemplateView
from fieldhouse.model.templates._helpers import field_reference, module_reference_config, option

COMPANIES = Template(
    slug="companies",
    name="Companies",
    description="Organisations you do business with: firmographics, hierarchy and won revenue.",
    version="1.0.0",
    module_name="Companies",
    module_slug="companies",
    fields=(
        TemplateField(
            slug="name",
            name="Name",
            label="Company name",
            data_type="text",
            config={"maxLength": 255, "isDisplayField": True},
            is_required=True,
        ),
        TemplateField(
            slug="website",
            name="Website",
            label="Website",
            data_type="url",
            config={
                "url": {"allowMultiple": False, "valueTypes": ["website"], "defaultType": "website"}
            },
        ),
        TemplateField(
            slug="logo",
            name="Logo",
            label="Logo",
            data_type="image",
            config={
                "image": {
                    "multiple": False,
                    "maxImages": 1,
                    "maxSizeKB": 1024,
                    "showInGrid": "icon",
                }
            },
        ),
        TemplateField(
            slug="industry",
            name="Industry",
            label="Industry",
            data_type="select",
            config={
                "options": [
                    option("software", "Software", "#6366f1"),
                    option("financial-services", "Financial services", "#0ea5e9"),
                    option("healthcare", "Healthcare", "#10b981"),
                    option("manufacturing", "Manufacturing", "#f59e0b"),
                    option("retail", "Retail", "#ec4899"),
                    option("other", "Other", "#94a3b8"),
                ],
                "select": {"defaultOptionSlug": "other"},
            },
        ),
        TemplateField(
            slug="employees",
            name="Employees",
            label="Employees",
            data_type="number",
            config={"decimals": 0, "min": 0, "allowNegative": False},
        ),
        TemplateField(
            slug="annual-revenue",
            name="AnnualRevenue",
            label="Annual revenue",
            data_type="currency",
            config={
                "currency": {
                    "defaultCurrency": "USD",
                    "allowedCurrencies": ["USD", "EUR", "GBP"],
                    "precision": 2,
                    "showCurrencyCode": True,
                }
            },
        ),
        TemplateField(
            slug="phone",
            name="Phone",
            label="Main phone",
            data_type="phone",
            config={
                "phone": {"allowMultiple": False, "valueTypes": ["main"], "defaultType": "main"},
                "phoneConfig": {"validateE164": True},
            },
        ),
        TemplateField(
            slug="headquarters",
            name="Headquarters",
            label="Headquarters",
            data_type="address",
            config={
                "address": {
                    "allowMultiple": True,
                    "valueTypes": ["headquarters", "billing", "shipping"],
                    "defaultType": "headquarters",
                }
            },
        ),
        TemplateField(
            slug="parent-company",
            name="ParentCompany",
            label="Parent company",
            data_type="parent_record",
            config={"parentRecord": {"maxDepth": 5, "preventCycles": True}},
        ),
        TemplateField(
            slug="deals",
            name="Deals",
            label="Deals",
            data_type="reference",
            config=module_reference_config("deals", multi=True, allow_inline_create=False),
        ),
        TemplateField(
            slug="total-won-deal-value",
            name="TotalWonDealValue",
            label="Total won deal value",
            data_type="rollup",
            config={
                "rollup": {
                    "linkedFieldSlug": "deals",
                    "aggregateFieldSlug": "amount",
                    "aggregation": "SUM",
                    "filterCriteria": {"stage": "won"},
                    "decimalPlaces": 2,
                    "format": "currency",
                }
            },
        ),
        TemplateField(
            slug="deal-count",
            name="DealCount",
            label="Number of deals",
            data_type="rollup",
            config={
                "rollup": {
                    "linkedFieldSlug": "deals",
                    "aggregateFieldSlug": None,
                    "aggregation": "COUNTALL",
                    "filterCriteria": {},
                    "decimalPlaces": 0,
                }
            },
        ),
        TemplateField(
            slug="health",
            name="Health",
            label="Account health",
            data_type="rating",
            config={
                "rating": {"maxRating": 5, "allowHalf": False, "showNumber": True, "icon": "star"}
            },
        ),
        TemplateField(
            slug="description",
            name="Description",
            label="Description",
            data_type="textarea",
            config={"maxLength": 5000, "rows": 4},
        ),
    ),
    views=(
        TemplateView(
            slug="all",
            name="All companies",
            config={
                "type": "table",
                "columns": ["name", "industry", "employees", "annual-revenue", "health"],
                "sort": {"field": "name", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="by-industry",
            name="By industry",
            config={
                "type": "board",
                "groupBy": "industry",
                "cardFields": ["name", "total-won-deal-value", "health"],
                "sort": {"field": "name", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="top-accounts",
            name="Top accounts",
            config={
                "type": "table",
                "columns": ["name", "total-won-deal-value", "deal-count", "health"],
                "sort": {"field": "total-won-deal-value", "direction": "desc"},
            },
        ),
    ),
    references=(
        field_reference("parent-company", "companies", multi=False),
        field_reference("deals", "deals", multi=True),
    ),
)
