// The /openapi/ success envelope: {code, data, message, success}.
import type { onRequestHookHandler } from 'fastify';
import { Type, type TSchema } from 'typebox';

export const Envelope = <D extends TSchema>(data: D) =>
  Type.Object({ code: Type.Integer(), data, message: Type.String(), success: Type.Boolean() });

/** Error bodies of /openapi/ as the description and decisions.md give them. */
export const ApiError = Type.Object(
  {
    error: Type.String(),
    code: Type.Integer(),
    message: Type.String(),
    detail: Type.Optional(Type.String()),
  },
  { description: 'Key, signature and parameter errors (see decisions.md section 1)' },
);

export const ok = <D>(code: 1 | 200, data: D) => ({ code, data, message: 'success', success: true });

/** Responses every authenticated /openapi/ route can give besides its success. */
export const apiErrors = { 400: ApiError, 401: ApiError, 404: ApiError, 413: ApiError, 429: ApiError };

const none: string[] = [];
export const keyOnlySecurity: Record<string, string[]>[] = [{ apiKey: none }];
export const signedOrKeySecurity: Record<string, string[]>[] = [
  { apiKey: none },
  { apiKey: none, appId: none, nonce: none, timestamp: none, signature: none },
];

export interface ReadRoute<Q extends TSchema, D extends TSchema> {
  tags: string[];
  summary: string;
  querystring: Q;
  data: D;
  security?: Record<string, string[]>[];
  deprecated?: boolean;
}

/** Options of an authenticated GET /openapi/ read: query and success schemas, docs, auth hook. */
export const readRoute = <Q extends TSchema, D extends TSchema>(auth: onRequestHookHandler, r: ReadRoute<Q, D>) => ({
  onRequest: auth,
  schema: {
    tags: r.tags,
    summary: r.summary,
    security: r.security ?? signedOrKeySecurity,
    ...(r.deprecated === true ? { deprecated: true } : {}),
    querystring: r.querystring,
    response: { 200: Envelope(r.data), ...apiErrors },
  },
});
