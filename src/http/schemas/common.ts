import { Type } from 'typebox';
import type { TSchema } from 'typebox';

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      type: Type.String(),
      code: Type.String(),
      message: Type.String(),
      field: Type.Optional(Type.String()),
      request_id: Type.Optional(Type.String()),
    }),
  },
  { $id: 'ErrorEnvelope' },
);

const err = (description: string) => ({ ...ErrorEnvelope, description });
/** The error envelope as one documented response. */
export const errorResponse = err;

/** The error responses a keyed route can give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const text: Record<number, string> = {
    400: 'validation_error',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    413: 'payload_too_large',
    422: 'precondition failed',
    429: 'rate_limit_exceeded',
  };
  const out: Record<number, TSchema> = {};
  for (const s of [401, 403, 429, ...statuses]) out[s] = err(text[s] ?? 'error');
  return out;
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const DateTime = Type.String({ format: 'date-time' });
export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
