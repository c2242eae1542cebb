import type { SchemaObject } from 'ajv';

/** JSON Schema keywords the OpenAPI 3.0 Schema Object does not have (and that have no 3.0 equivalent). */
const UNKNOWN_TO_OPENAPI_30 = new Set([
  '$id',
  '$schema',
  '$comment',
  '$defs',
  '$async',
  'definitions',
  'if',
  'then',
  'else',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'prefixItems',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentMediaType',
  'contentEncoding',
  'errorMessage',
]);

const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);

const isSchema = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mapProperties(properties: Record<string, SchemaObject>): Record<string, SchemaObject> {
  let changed = false;
  const out: Record<string, SchemaObject> = {};
  for (const [name, schema] of Object.entries(properties)) {
    out[name] = toOpenApiSchema(schema);
    if (out[name] !== schema) changed = true;
  }
  return changed ? out : properties;
}

function mapList(list: SchemaObject[]): SchemaObject[] {
  const out = list.map(toOpenApiSchema);
  return out.some((s, i) => s !== list[i]) ? out : list;
}

/**
 * The OpenAPI 3.0 form of a request or response schema. A schema that is already valid OpenAPI 3.0 comes back
 * as the very same object (and so does every untouched subschema), so the document shows exactly the objects
 * the validator compiles; only a schema that needs a change is copied. Custom `format` values are kept.
 */
export function toOpenApiSchema(schema: SchemaObject): SchemaObject {
  let changed = false;
  const out: SchemaObject = {};
  const set = (key: string, value: unknown, original: unknown): void => {
    out[key] = value;
    if (value !== original) changed = true;
  };
  for (const [key, value] of Object.entries(schema)) {
    if (UNKNOWN_TO_OPENAPI_30.has(key)) {
      changed = true;
    } else if (key === 'const') {
      set('enum', [value], undefined);
    } else if (key === 'examples') {
      changed = true;
      if (Array.isArray(value) && value.length && !('example' in schema)) out.example = value[0];
    } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'number') {
      // Draft 6+ writes the bound itself; OpenAPI 3.0 writes the bound in minimum/maximum plus a boolean.
      set(key === 'exclusiveMinimum' ? 'minimum' : 'maximum', value, undefined);
      set(key, true, value);
    } else if (key === 'type' && Array.isArray(value)) {
      const types = (value as string[]).filter((t) => t !== 'null');
      if (types.length < value.length) set('nullable', true, undefined);
      if (types.length === 1) set('type', types[0], value);
      else changed = true; // several types: OpenAPI 3.0 has no union type, so leave the type open
    } else if (key === 'properties' && isSchema(value)) {
      set(key, mapProperties(value as Record<string, SchemaObject>), value);
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isSchema(value)) {
      set(key, toOpenApiSchema(value), value);
    } else if (key === 'items' && Array.isArray(value)) {
      // Tuples do not exist in OpenAPI 3.0: any of the positions' schemas.
      set(key, { anyOf: mapList(value as SchemaObject[]) }, value);
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      set(key, mapList(value as SchemaObject[]), value);
    } else {
      out[key] = value;
    }
  }
  return changed ? out : schema;
}
