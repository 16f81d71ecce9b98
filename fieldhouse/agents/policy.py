"""The workspace's agent policy: the use cases behind ``GET|PUT /api/agents/policy``.

Setting the policy is an approval given in advance by whoever sets it (``set_by``): the
principal who asks is recorded as its setter by the write itself, so the route cannot name
anyone else. Every tool the policy names must exist (400 with one issue per unknown name).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.rights import may_administer
from fieldhouse.agents.gate import load_policy
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import POLICY_ID, Kind, Policy
from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.storage.objects import ObjectRow


@dataclass(frozen=True)
class SetPolicy(Message[Policy]):
    """Replace the workspace's policy; its setter is the message's actor."""

    policy: Policy

    async def apply(self, ctx: WriteContext) -> Policy:
        await may_administer(ctx, self.by)
        policy = replace(self.policy, set_by=self.by.user_id)
        old = await ctx.txn.get_object(Kind.POLICY, POLICY_ID)
        data = policy.to_json()
        created = old.created_at if old is not None else ctx.now
        await ctx.txn.put_object(
            ObjectRow(
                ctx.account_id, Kind.POLICY, POLICY_ID, data, "active", None, created, ctx.now
            )
        )
        await ctx.activity(
            ActivityKind.AGENT_POLICY_CHANGED,
            user_id=self.by.user_id,
            data={"kind": str(Kind.POLICY), "objectId": POLICY_ID, **data},
        )
        return policy


async def get_policy(runtime: AgentRuntime, principal: Principal) -> Policy:
    """The policy of the principal's workspace (the defaults when none was set)."""
    return await load_policy(runtime.store, principal.account_id)


async def set_policy(
    runtime: AgentRuntime, known: frozenset[str], setter: Principal, draft: Policy
) -> Policy:
    """Replace the policy of the setter's workspace with ``draft`` (its tool lists sorted and
    without repeats), set by ``setter``; 400 when it names a tool not in ``known``."""
    issues = [
        Issue(
            "invalid_enum_value", ("autoApprove", i), f"Unknown tool {name!r}", {"received": name}
        )
        for i, name in enumerate(draft.auto_approve)
        if name not in known
    ]
    issues += [
        Issue(
            "invalid_enum_value",
            ("requireApproval", i),
            f"Unknown tool {name.partition(':')[0]!r}",
            {"received": name},
        )
        for i, name in enumerate(draft.require_approval)
        if name.partition(":")[0] not in known
    ]
    if issues:
        raise ValidationFailed(issues)
    tidy = replace(
        draft,
        auto_approve=tuple(sorted(set(draft.auto_approve))),
        require_approval=tuple(sorted(set(draft.require_approval))),
    )
    return await runtime.actors.ask(SetPolicy(tidy, by=setter))
