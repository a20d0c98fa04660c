/** Route paths of `@wf/core/protocol` (OpenAPI style, `{id}`) in Fastify's style (`:id`). */
export function fastifyPath(route: string): string {
  return route.replace(/\{(\w+)\}/g, ":$1");
}
