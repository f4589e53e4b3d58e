// multipart/form-data bodies of the Telegram surface, read into fields (text, a file as a Buffer,
// JSON parts as their value) before the methods' checks, under the 64 KiB every body gets
// (decisions.md section 3): the multipart parser streams, so Fastify's bodyLimit never sees it.
// Whatever the parser throws about the body is a parameter error, not a 500.
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError, Errors } from '../../errors.js';
import type { App } from '../../http/types.js';
import { MAX_DEPTH, tooDeep } from '../../lib/nul.js';
import { badRequest } from './errors.js';

const tooLarge = (): AppError => new AppError(Errors.payloadTooLarge);

/** The plugin's own limit errors (parts, fields, files, file size) answer 413, as a large body does. */
const isLimit = (error: unknown): boolean =>
  error instanceof Error && 'statusCode' in error && error.statusCode === 413;

async function fields(request: FastifyRequest, limit: number): Promise<Record<string, unknown>> {
  if (Number(request.headers['content-length']) > limit) throw tooLarge();
  // Values by name: a name given twice becomes a list (a JSON part's own array stays one value).
  const given = new Map<string, unknown[]>();
  let size = 0;
  for await (const part of request.parts()) {
    let value: unknown;
    if (part.type === 'file') {
      const data = await part.toBuffer();
      size += data.length;
      value = data;
    } else {
      // The parser cuts a value longer than its fieldSize and says so: never pass on a cut value.
      if (part.valueTruncated || part.fieldnameTruncated) throw tooLarge();
      value = part.value;
      // A part typed application/json arrives parsed: held to the depth a JSON body is held to.
      if (typeof value !== 'string' && tooDeep(value)) {
        throw badRequest(`${part.fieldname} nests deeper than ${MAX_DEPTH} levels`);
      }
      size += part.fieldname.length + (typeof value === 'string' ? value.length : JSON.stringify(value).length);
    }
    if (size > limit) throw tooLarge();
    const values = given.get(part.fieldname);
    if (values === undefined) given.set(part.fieldname, [value]);
    else values.push(value);
  }
  // No prototype: a field named __proto__ is just a field.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, values] of given) out[name] = values.length === 1 ? values[0] : values;
  return out;
}

/** Registers the parser in the Telegram scope, for bodies within the application's bodyLimit. */
export async function multipartBodies(tg: App): Promise<void> {
  // Fastify fills in every option it has a default for (1 MiB for bodyLimit); app.ts sets 64 KiB.
  const limit = tg.initialConfig.bodyLimit ?? 1_048_576;
  await tg.register(multipart, {
    limits: { fieldSize: limit, fileSize: limit, files: 1, fields: 100, parts: 101, headerPairs: 100 },
  });
  tg.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    try {
      request.body = await fields(request, limit);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw isLimit(error) ? tooLarge() : badRequest('body: malformed multipart/form-data');
    }
  });
}
