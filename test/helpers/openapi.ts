import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv2020) => Ajv2020;

/**
 * A compiler of the OpenAPI document's schemas (a media type's `schema`, a `$ref` to a component)
 * into Ajv validators. Objects are closed (additionalProperties: false) unless they say otherwise,
 * so a field the document does not list fails.
 */
export function documentValidator(doc: Json): (schema: Json) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: close(structuredClone(doc.components)) });
  return (schema) => ajv.compile(schema.$ref ? { $ref: `doc${schema.$ref}` } : inline(schema));
}

function inline(schema: Json): Json {
  return JSON.parse(JSON.stringify(close(structuredClone(schema))).replaceAll('"#/components/', '"doc#/components/'));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function close(node: unknown): any {
  if (Array.isArray(node)) return node.map(close);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'examples' || k === 'example' ? v : close(v);
  const open = out.additionalProperties !== undefined || out.patternProperties !== undefined;
  if (out.type === 'object' && out.properties && !open) out.additionalProperties = false;
  return out;
}
