"""The MCP face: the remote endpoint at `/mcp`, built on the official MCP SDK (low-level server).

One URL serves protocol 2026-07-28 (stateless, `server/discover`) and the handshake versions
2025-11-25, 2025-06-18 and 2025-03-26, chosen per request. Anonymous callers get the two public
tools; a valid key gets the ten commercial tools. Every tool calls the same use case, through the
same entitlement and the same JSON shapes (`entrypoints.wire`) as its REST twin.

Modules: `state` (the per-request holder), `auth` (credentials -> caller, 401 bodies),
`schemas` (input/output JSON Schemas), `validation` (arguments -> domain errors), `summaries`
(readable text), `tools` (the two tool tables), `invoke` (one tools/call: entitle, validate
every argument, meter, run), `server` (the SDK server), `routing` (the version and header
rules that need the body), `endpoint` (the ASGI wrapper), `mount` (Litestar).
"""
