"""ranker="embeddings" without an embedding provider is the service's 400
(code ranker_unavailable), surfacing as the SDK's error (urllib's
HTTPError), never as an empty result. bm25 on the same handle works."""
from _cave import CATALOG, attempt, cave, emit

tools = cave().tools(CATALOG, strategy="deferred", initial_tool_count=0)
emit({
    "embeddings": attempt(lambda: tools.search("check service status", ranker="embeddings")),
    "bm25": attempt(lambda: tools.search("check service status", ranker="bm25")),
})
