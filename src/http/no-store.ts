// Answers that carry a credential (tokens, app secrets, webhook secrets) are never kept by a
// browser or a proxy: RFC 6749 section 5.1 asks this of token responses, and the token endpoints
// answer GET too.
import type { FastifyReply, FastifyRequest } from 'fastify';

const HEADERS = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** An onRequest hook, so that every answer of the route has the headers, errors included. */
export function noStore(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  void reply.headers(HEADERS);
  done();
}
