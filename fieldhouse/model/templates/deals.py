"""The built-in Deals template: a sales pipeline with stages, amounts and a weighted forecast."""

from __future__ import annotations

from fieldhouse.model.schema import Template, TemplateField, TemplateView
from fieldhouse.model.templates._helpers import field_reference, module_reference_config, option

DEALS = Template(
    slug="deals",
    name="Deals",
    description="Sales opportunities in a pipeline: stage, amount, win probability and dates.",
    version="1.0.0",
    module_name="Deals",
    module_slug="deals",
    fields=(
        TemplateField(
            slug="name",
            name="Name",
            label="Deal name",
            data_type="text",
            config={"maxLength": 255, "isDisplayField": True},
            is_required=True,
        ),
        TemplateField(
            slug="deal-number",
            name="DealNumber",
            label="Deal number",
            data_type="autonumber",
            config={
                "autonumber": {
                    "formatType": "prefix",
                    "prefix": "DEAL-",
                    "padding": 5,
                    "startFrom": 1,
                    "nextValue": 1,
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
            slug="contacts",
            name="Contacts",
            label="Contacts",
            data_type="reference",
            config=module_reference_config("contacts", multi=True),
        ),
        TemplateField(
            slug="stage",
            name="Stage",
            label="Stage",
            data_type="select",
            config={
                "options": [
                    option("lead", "Lead", "#94a3b8"),
                    option("qualified", "Qualified", "#3b82f6"),
                    option("proposal", "Proposal", "#8b5cf6"),
                    option("negotiation", "Negotiation", "#f59e0b"),
                    option("won", "Won", "#22c55e"),
                    option("lost", "Lost", "#ef4444"),
                ],
                "select": {"defaultOptionSlug": "lead"},
            },
            is_required=True,
        ),
        TemplateField(
            slug="amount",
            name="Amount",
            label="Amount",
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
            slug="probability",
            name="Probability",
            label="Win probability",
            data_type="progress",
            config={
                "progress": {
                    "showPercentage": True,
                    "colorThresholds": {"0": "#ef4444", "40": "#f59e0b", "70": "#22c55e"},
                }
            },
        ),
        TemplateField(
            slug="weighted-value",
            name="WeightedValue",
            label="Weighted value",
            data_type="formula",
            config={
                "formula": {
                    "expression": "{amount} * {probability} / 100",
                    "resultType": "number",
                    "format": "currency",
                    "decimalPlaces": 2,
                    "referencedFields": ["amount", "probability"],
                }
            },
        ),
        TemplateField(
            slug="close-date",
            name="CloseDate",
            label="Expected close date",
            data_type="date",
            config={"format": "YYYY-MM-DD"},
        ),
        TemplateField(
            slug="sales-cycle",
            name="SalesCycle",
            label="Sales cycle",
            data_type="duration",
            config={"duration": {"format": "decimal"}},
        ),
        TemplateField(
            slug="contract-period",
            name="ContractPeriod",
            label="Contract period",
            data_type="date_range",
            config={"dateRange": {"includeTime": False}},
        ),
        TemplateField(
            slug="owner",
            name="Owner",
            label="Deal owner",
            data_type="person",
            config={"person": {"allowMultiple": False, "includeInactiveUsers": False}},
        ),
        TemplateField(
            slug="lost-reason",
            name="LostReason",
            label="Lost reason",
            data_type="textarea",
            config={"maxLength": 2000, "rows": 3},
        ),
    ),
    views=(
        TemplateView(
            slug="all",
            name="All deals",
            config={
                "type": "table",
                "columns": [
                    "deal-number",
                    "name",
                    "company",
                    "stage",
                    "amount",
                    "probability",
                    "close-date",
                    "owner",
                ],
                "sort": {"field": "close-date", "direction": "asc"},
            },
        ),
        TemplateView(
            slug="pipeline",
            name="Pipeline",
            config={
                "type": "board",
                "groupBy": "stage",
                "cardFields": ["name", "company", "amount", "close-date"],
                "sort": {"field": "amount", "direction": "desc"},
            },
        ),
        TemplateView(
            slug="open",
            name="Open deals",
            config={
                "type": "table",
                "columns": ["name", "stage", "amount", "weighted-value", "close-date"],
                "sort": {"field": "weighted-value", "direction": "desc"},
                "filter": {
                    "conjunction": "AND",
                    "conditions": [
                        {"fieldSlug": "stage", "operator": "notIn", "values": ["won", "lost"]}
                    ],
                },
            },
        ),
    ),
    references=(
        field_reference("company", "companies", multi=False),
        field_reference("contacts", "contacts", multi=True),
    ),
)
