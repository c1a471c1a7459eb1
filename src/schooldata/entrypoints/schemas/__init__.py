"""Every schema the service publishes, generated: the OpenAPI document (REST) and the MCP
tools' input and output schemas, from the operation declarations (`application.operations`:
parameters with their bounds, per-plan limits, features) and the output Structs
(`entrypoints.wire`, through `entrypoints.answers.OUTPUTS`). Nothing here is written by hand
twice: `style` puts msgspec's schemas in the published style, `outputs` holds the body
components, `parameters` the inputs, `responses` the statuses, `document` the whole OpenAPI
document and `tools` the MCP tool schemas.
"""
