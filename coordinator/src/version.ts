/** The service version (spec: Versioning), shown by /health, the OpenAPI document, MCP and the discovery documents. */
export const SERVICE_VERSION = '1.0.0';
