"""Search across the workspace's modules (SPEC endpoint 17)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import JsonInt, JsonNumber, NonBlank, Open, Strict
from fieldhouse.http.routes.common import workspace_schemas
from fieldhouse.model.principal import Principal
from fieldhouse.search.engine import SearchResult
from fieldhouse.services import Services

routes = Routes()

MODULE_RECORD = "module_record"
SOURCE_TYPES = (MODULE_RECORD,)


class SearchBody(Strict):
    query: NonBlank = Field(min_length=1, max_length=1000)
    types: list[Annotated[str, StringConstraints(max_length=64)]] | None = Field(
        default=None, max_length=20
    )
    limit: JsonInt = Field(default=25, ge=1, le=50)
    minSimilarity: JsonNumber = Field(default=0.3, ge=0, le=1)


class SearchResultItem(Open):
    sourceType: str
    sourceId: str
    title: str
    snippet: str | None
    metadata: dict[str, Any]
    score: float
    link: str


class SearchCoverage(Open):
    vectors: bool = Field(
        description="whether the semantic half ran (false while the embedding model loads, "
        "or with no model configured: the keyword half alone ranked the results)"
    )
    vectorsWaiting: int = Field(
        description="records of the workspace whose current text still waits for its vector; "
        "they are ranked by their keyword score meanwhile, never below the keyword half alone"
    )
    vectorShare: float = Field(
        description="the share (0 to 1) of the workspace's records whose vector is current"
    )


class SearchResponse(Open):
    results: list[SearchResultItem]
    total: int
    fallback: bool
    coverage: SearchCoverage | None = Field(
        default=None,
        description="how complete the semantic half was (absent with the fallback)",
    )


def _empty(fallback: bool) -> dict[str, Any]:
    return {"results": [], "total": 0, "fallback": fallback}


def _coverage(found: SearchResult) -> dict[str, Any] | None:
    c = found.coverage
    if c is None:
        return None
    return {"vectors": c.vectors, "vectorsWaiting": c.pending, "vectorShare": c.share}


@routes.endpoint(
    "POST",
    "/v1/search",
    summary="Search the workspace",
    scope="records:read",
    tag="search",
    body=SearchBody,
    responses={200: SearchResponse},
    description=(
        "Hybrid keyword (BM25F) and semantic (all-MiniLM-L6-v2 cosine) search over the records "
        "of the modules the credential's role can view; the two halves' normalised scores are "
        "mixed 0.4 keyword, 0.6 semantic. "
        "`minSimilarity` applies to the semantic part. A record is found by its words the "
        "moment its write is acknowledged; its vector follows within the embedder's lag, and "
        "until then it is ranked by its keyword score. A query that is words of a record's "
        "name puts the records whose name holds them all first. `coverage` says how complete "
        "the semantic half was. When the index is unavailable the answer is 200 with no "
        "results and `fallback: true`."
    ),
)
async def search(svc: Services, principal: Principal, body: SearchBody) -> Any:
    if body.types is not None and MODULE_RECORD not in body.types:
        return _empty(False)  # no other source type is indexed (yet)
    engine = svc.search
    if engine is None:
        return _empty(True)
    schemas = await workspace_schemas(svc, principal)
    slugs = {
        schema.module.module_id: slug
        for slug, schema in schemas.modules.items()
        if principal.can_view(slug)
    }
    found = await engine.search(
        principal.account_id,
        body.query,
        slugs.keys(),
        limit=body.limit,
        min_similarity=body.minSimilarity,
    )
    if found is None:
        return _empty(True)
    results = []
    for hit in found.hits:
        slug = slugs.get(hit.module_id)
        if slug is None:  # module removed since it was indexed
            continue
        results.append(
            {
                "sourceType": MODULE_RECORD,
                "sourceId": hit.record_id,
                "title": hit.title,
                "snippet": hit.snippet,
                "metadata": {
                    "moduleSlug": slug,
                    "moduleId": hit.module_id,
                    "similarity": hit.similarity,
                    "keywordScore": hit.keyword_score,
                },
                "score": hit.score,
                "link": f"/v1/modules/{slug}/records/{hit.record_id}",
            }
        )
    return {
        "results": results,
        "total": found.total,
        "fallback": False,
        "coverage": _coverage(found),
    }
