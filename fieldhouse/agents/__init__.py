"""Agents: the tool loop, model providers, tools and the approval gate."""
