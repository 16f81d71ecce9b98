"""The provider FIELDHOUSE_AGENT_PROVIDER names, built from the settings."""

from __future__ import annotations

import pytest

from fieldhouse.agents.providers import (
    AnthropicProvider,
    OfflineProvider,
    OpenAIProvider,
    make_provider,
)
from fieldhouse.config import Settings


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("offline", OfflineProvider),
        (" OpenAI ", OpenAIProvider),
        ("anthropic", AnthropicProvider),
    ],
)
def test_each_named_provider(name: str, kind: type) -> None:
    settings = Settings(agent_provider=name, agent_api_key="sk-test", agent_model="m")
    assert isinstance(make_provider(settings), kind)


def test_an_unknown_provider_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError) as caught:
        make_provider(Settings(agent_provider="llama"))
    assert str(caught.value) == (
        "Unknown agent provider 'llama'; use one of offline, openai, anthropic"
    )
