import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's own response serializer compiler (fast-json-stringify), compiling each distinct
 * response schema once. Fastify compiles one serializer per route and status code: 706 at each
 * start (the /v1 routes and their unprefixed aliases), of which 45 differ, most of the rest
 * being the error envelope every route answers with. Each build also walks every shared schema:
 * making the server ready took 1.3-2.4 s on 2 vCPUs, 60 % of it these builds (0.3-0.4 s now), at
 * every `serve` start and in every test file that starts the app. A serializer depends only on
 * its schema and the shared schemas, so equal schema texts share one.
 */
export function onceEachSerializer(factory: SerializerFactory = SerializerSelector()): SerializerFactory {
  // Fastify asks for a compiler once per plugin context, each with the shared schemas it sees:
  // contexts that see the same ones share their serializers too.
  const byContext = new Map<string, Map<string, Serializer>>();
  return (externalSchemas, options) => {
    const compile = factory(externalSchemas, options);
    const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
    let serializers = byContext.get(context);
    if (serializers === undefined) byContext.set(context, (serializers = new Map<string, Serializer>()));
    return (route) => {
      const key = JSON.stringify(route.schema);
      let serialize = serializers.get(key);
      if (serialize === undefined) {
        serialize = compile(route);
        serializers.set(key, serialize);
      }
      return serialize;
    };
  };
}
