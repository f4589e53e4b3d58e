// The /openapi/ gate: X-API-KEY (key-only), plus the signature headers when present or required.
// A callback hook rather than an async one: a cached key with the in-memory nonce store and rate
// limiter passes without a single promise; only a store look-up or Redis makes it wait.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError, asError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { policyOf, rateLimitedError, type RateLimiter, type Taken } from '../../lib/rate-limit.js';
import type { NonceStore } from '../../lib/shared-state.js';
import type { Credential, CredentialStore } from './credentials.js';
import { claimNonce, type Signed, verifySignature } from './signature.js';

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

/** `next` after `first`: at once when `first` is synchronous (undefined), else once it settles. */
const then = (first: Promise<void> | undefined, next: () => Promise<void> | undefined): Promise<void> | undefined =>
  first === undefined ? next() : first.then(next);

export function apiKeyAuth(deps: AuthDeps, endpoint: EndpointAuth): onRequestHookHandler {
  const mustSign = endpoint.signed && deps.requireSigned;
  const perSecond = endpoint.read === true ? deps.readsPerSecond : undefined;
  const bucket = perSecond === undefined ? undefined : { perSecond, burst: perSecond };

  /** Counts the call against the key's read limit (when the endpoint has one), then admits it. */
  const admit = (request: FastifyRequest, credential: Credential): Promise<void> | undefined => {
    if (bucket === undefined) {
      request.credential = credential;
      return undefined;
    }
    const pass = (take: Taken): void => {
      if (!take.ok) throw rateLimitedError(take, policyOf(take.claim));
      request.credential = credential;
    };
    const take = deps.limiter.take([{ key: `read:${credential.appId}`, bucket }], deps.clock.now());
    if (take instanceof Promise) return take.then(pass);
    pass(take);
    return undefined;
  };

  /** Checks the signature (when sent or required) of a request whose key is known. */
  const check = (request: FastifyRequest, credential: Credential | undefined): Promise<void> | undefined => {
    if (credential === undefined) throw new AppError(Errors.apiKeyUnavailable);
    const signature = header(request, 'signature');
    if (signature === undefined) {
      if (mustSign) throw new AppError(Errors.signatureRequired);
      return admit(request, credential);
    }
    const now = deps.clock.now();
    const signed = verifySignature(
      {
        appId: header(request, 'app_id'),
        nonce: header(request, 'nonce'),
        timestamp: header(request, 'timestamp'),
        signature,
      },
      credential,
      now,
    );
    // A replay is refused at its claim, before it can spend the key's read token.
    const claimed = claimNonce(deps.nonces, signed, now);
    return then(claimed, () =>
      bucket === undefined ? admit(request, credential) : limited(request, credential, signed),
    );
  };

  /**
   * admit for a read with a limit, which may refuse after the claim: a nonce is held until its
   * timestamp leaves the window (up to 600 s), so a refused read gives its claim back, or refused
   * reads would let one key pin memory at any rate.
   */
  const limited = (request: FastifyRequest, credential: Credential, signed: Signed): Promise<void> | undefined => {
    const release = (error: unknown): never => {
      // A release that fails leaves the nonce claimed until it expires, which refuses nothing new.
      const released = deps.nonces.release(signed.key, signed.expiresAt);
      if (released instanceof Promise) released.catch(() => undefined);
      throw error;
    };
    try {
      return admit(request, credential)?.catch(release);
    } catch (error) {
      return release(error);
    }
  };

  const authenticate = (request: FastifyRequest): Promise<void> | undefined => {
    const apiKey = header(request, 'x-api-key');
    if (apiKey === undefined || apiKey === '') throw new AppError(Errors.apiKeyUnavailable);
    const cached = deps.credentials.cached(apiKey);
    if (cached !== undefined) return check(request, cached);
    return deps.credentials.byApiKey(apiKey).then((credential) => check(request, credential));
  };

  return (request, _reply, done) => {
    let waiting: Promise<void> | undefined;
    try {
      waiting = authenticate(request);
    } catch (error) {
      done(asError(error));
      return;
    }
    if (waiting === undefined) {
      done();
      return;
    }
    waiting.then(
      () => {
        done();
      },
      (error: unknown) => {
        done(asError(error));
      },
    );
  };
}

/** The authenticated credential of a request that passed apiKeyAuth. */
export function credentialOf(request: FastifyRequest): Credential {
  if (request.credential === null) throw new Error('route is missing apiKeyAuth');
  return request.credential;
}
