"""The agent policy's use cases: who sets it is the principal that asks (never a name the
caller passes), unknown tools are refused with nothing written, and the change is logged."""

from __future__ import annotations

import pytest

from fieldhouse.agents import policy as policies
from fieldhouse.model.agents import Policy
from fieldhouse.model.errors import ValidationFailed
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, principal_of
from tests.conftest import Workspace, add_user

KNOWN = frozenset({"email.send", "records.update"})


async def test_the_setter_is_the_principal_who_asks(runtime: Runtime, ws: Workspace) -> None:
    admin = await principal_of(runtime, await add_user(runtime, ws, "admin"))
    agents = runtime.services.agents
    assert await policies.get_policy(agents, admin) == Policy()
    draft = Policy(("email.send", "email.send"), ("records.update:deals",), set_by="someone-else")
    stored = await policies.set_policy(agents, KNOWN, admin, draft)
    assert stored.set_by == admin.user_id
    assert stored.auto_approve == ("email.send",)
    assert await policies.get_policy(agents, admin) == stored
    assert "agent_policy_changed" in await activity_types(runtime, ws)


async def test_unknown_tools_are_refused_and_nothing_is_written(
    runtime: Runtime, ws: Workspace
) -> None:
    owner = await principal_of(runtime, ws)
    agents = runtime.services.agents
    draft = Policy(("email.send", "nope"), ("records.update", "gone:deals"))
    with pytest.raises(ValidationFailed) as caught:
        await policies.set_policy(agents, KNOWN, owner, draft)
    paths = [issue.path for issue in caught.value.issues]
    assert paths == [("autoApprove", 1), ("requireApproval", 1)]
    assert await policies.get_policy(agents, owner) == Policy()
    assert "agent_policy_changed" not in await activity_types(runtime, ws)
