/** One route of the API as the fuzz and cross-tenant tests see it. */
export interface ApiRoute {
  method: string;
  /** Fastify syntax, e.g. `/v1/webhooks/:webhookId/deliveries`. */
  path: string;
  /** The JSON schema of the body (POST), with its `$ref` resolved. */
  body?: ObjectSchema;
  /** Documented query parameters. */
  query: string[];
}

export interface ObjectSchema {
  properties?: Record<string, { type?: string; example?: unknown; enum?: unknown[]; items?: unknown }>;
  required?: string[];
}

/** The parts of the OpenAPI document read here (its whole shape is what the OpenAPI test checks). */
interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: ObjectSchema & { $ref?: string } }> }; parameters?: { in: string; name: string }[] }>
  >;
  components: { schemas: Record<string, ObjectSchema> };
}

/** Served by the gateway but not operations of the API: the document and its reference page. */
const DOCUMENT_ROUTES = /^GET \/v1\/(openapi\.json|docs)/;

/**
 * How to build a gateway in this process and read the routes it serves (`METHOD /path`, Fastify syntax): the gateway's
 * `createGateway` and `servedRoutes`, which the spec passes in (a library may not import an app).
 */
export interface GatewayRouteTable<App extends { close(): Promise<unknown> }> {
  create: () => Promise<App>;
  routes: (app: App) => string[];
}

/**
 * Every `/v1` route of the API: the route table of a gateway built in this process (what Fastify really serves), each
 * with its body schema and query parameters from the OpenAPI document the running gateway at `gatewayUrl` serves.
 * A served route the document does not describe fails here.
 */
export async function apiRoutes<App extends { close(): Promise<unknown> }>(gatewayUrl: string, table: GatewayRouteTable<App>): Promise<ApiRoute[]> {
  const gateway = await table.create();
  let served: string[];
  try {
    served = table.routes(gateway).filter((route) => / \/v1\//.test(route) && !DOCUMENT_ROUTES.test(route));
  } finally {
    await gateway.close();
  }
  const document = (await (await fetch(`${gatewayUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  return served.map((route) => {
    const [method, path] = route.split(' ') as [string, string];
    const operation = document.paths[path.replace(/^\/v1/, '').replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${route} is served but not documented`);
    const schema = operation.requestBody?.content?.['application/json']?.schema;
    return {
      method,
      path,
      body: schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema,
      query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
    };
  });
}

/** The documented example of each property, as JSON text: a body of the right shape (its ids name nothing). */
export function exampleEntries(schema: ObjectSchema | undefined): [string, string][] {
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => [name, JSON.stringify(property.example ?? property.enum?.[0] ?? 'x')]);
}
