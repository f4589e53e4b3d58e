// PKCE (RFC 7636), S256 only: "plain" would send the secret itself through the browser.
import { hash } from 'node:crypto';
import { safeEqual } from '../../lib/crypto.js';

export const PKCE_METHODS = ['S256'] as const;

/** A challenge is BASE64URL(SHA-256(verifier)) without padding: 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** Section 4.1: 43 to 128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const isChallenge = (v: string): boolean => CHALLENGE.test(v);

export const challengeOf = (verifier: string): string => hash('sha256', verifier, 'base64url');

/**
 * Whether the exchange may proceed: a code issued with a challenge needs its verifier; one issued
 * without needs none, and a verifier sent anyway is refused (a request stripped of its challenge
 * on the way must not pass as a PKCE one).
 */
export function verifierMatches(challenge: string | null, verifier: string | undefined): boolean {
  if (challenge === null) return verifier === undefined || verifier === '';
  return verifier !== undefined && VERIFIER.test(verifier) && safeEqual(challengeOf(verifier), challenge);
}

/** What is wrong with an authorization request's PKCE parameters, if anything (the page shows it). */
export function pkceProblem(challenge: string | undefined, method: string | undefined): string | undefined {
  if (challenge === undefined) return method === undefined ? undefined : 'code_challenge_method needs code_challenge.';
  // RFC 7636 section 4.3: no method means plain, which is not offered.
  if (method !== 'S256') return 'code_challenge_method must be S256 (plain is not accepted).';
  return isChallenge(challenge)
    ? undefined
    : 'code_challenge must be 43 characters of BASE64URL (SHA-256 of the verifier).';
}
