// The /openapi/ gate: X-API-KEY (key-only), plus the signature headers when present or required.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { policyOf, rateLimitedError, type RateLimiter } from '../../lib/rate-limit.js';
import type { NonceStore } from '../../lib/shared-state.js';
import type { Credential, CredentialStore } from './credentials.js';
import { verifySignature } from './signature.js';

declare module 'fastify' {
  interface FastifyRequest {
    credential: Credential | null;
  }
}

export interface AuthDeps {
  credentials: CredentialStore;
  nonces: NonceStore;
  clock: Clock;
  /** Deployment setting: signed endpoints refuse key-only calls. */
  requireSigned: boolean;
  limiter: RateLimiter;
  /** Requests per second per API key on read endpoints; undefined when rate limits are off. */
  readsPerSecond: number | undefined;
}

export interface EndpointAuth {
  /** The description lists the Signed header set for this endpoint. */
  signed: boolean;
  /** A read endpoint: counted against the per-key read limit. */
  read?: boolean;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function apiKeyAuth(deps: AuthDeps, endpoint: EndpointAuth): onRequestAsyncHookHandler {
  const mustSign = endpoint.signed && deps.requireSigned;
  const perSecond = endpoint.read === true ? deps.readsPerSecond : undefined;
  return async (request) => {
    const apiKey = header(request, 'x-api-key');
    const credential = apiKey === undefined || apiKey === '' ? undefined : await deps.credentials.byApiKey(apiKey);
    if (credential === undefined) throw new AppError(Errors.apiKeyUnavailable);
    const signature = header(request, 'signature');
    if (signature !== undefined) {
      await verifySignature(
        {
          appId: header(request, 'app_id'),
          nonce: header(request, 'nonce'),
          timestamp: header(request, 'timestamp'),
          signature,
        },
        credential,
        deps.nonces,
        deps.clock.now(),
      );
    } else if (mustSign) {
      throw new AppError(Errors.signatureRequired);
    }
    if (perSecond !== undefined) {
      const key = `read:${credential.appId}`;
      const bucket = { perSecond, burst: perSecond };
      const take = await deps.limiter.take(key, bucket, deps.clock.now());
      if (!take.ok) throw rateLimitedError(take, policyOf(key, bucket));
    }
    request.credential = credential;
  };
}

/** The authenticated credential of a request that passed apiKeyAuth. */
export function credentialOf(request: FastifyRequest): Credential {
  if (request.credential === null) throw new Error('route is missing apiKeyAuth');
  return request.credential;
}
