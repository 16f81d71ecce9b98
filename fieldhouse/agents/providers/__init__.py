"""Model providers: ``offline`` (deterministic planner), ``openai`` and ``anthropic``."""

from __future__ import annotations

from fieldhouse.agents.providers.anthropic import AnthropicProvider
from fieldhouse.agents.providers.base import Provider, ProviderError, Step, TextSink, Turn
from fieldhouse.agents.providers.offline import OfflineProvider
from fieldhouse.agents.providers.openai import OpenAIProvider
from fieldhouse.config import Settings

PROVIDERS = ("offline", "openai", "anthropic")


def make_provider(settings: Settings) -> Provider:
    """The provider FIELDHOUSE_AGENT_PROVIDER names (ValueError for an unknown one)."""
    name = settings.agent_provider.strip().lower()
    if name == "offline":
        return OfflineProvider()
    options = {
        "api_key": settings.agent_api_key,
        "model": settings.agent_model,
        "base_url": settings.agent_base_url,
        "timeout": settings.agent_provider_timeout,
    }
    if name == "openai":
        return OpenAIProvider(**options)  # type: ignore[arg-type]
    if name == "anthropic":
        return AnthropicProvider(**options)  # type: ignore[arg-type]
    raise ValueError(f"Unknown agent provider {name!r}; use one of {', '.join(PROVIDERS)}")


__all__ = [
    "PROVIDERS",
    "AnthropicProvider",
    "OfflineProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
    "Step",
    "TextSink",
    "Turn",
    "make_provider",
]
