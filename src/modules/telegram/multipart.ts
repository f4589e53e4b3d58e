// multipart/form-data bodies of the Telegram surface, read into fields (text, a file as a Buffer,
// JSON parts as their value) before the methods' checks, under the Telegram surface's body limit
// (TELEGRAM_BODY_LIMIT, as its forms and JSON): the multipart parser streams, so Fastify's
// bodyLimit never sees it.
// Whatever the parser throws about the body is a parameter error, not a 500. A webhook's answer in
// this form (already read whole) goes through the same parser (busboy, which the plugin drives) and
// the same decoding, multipartFields.
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { Busboy } from '@fastify/busboy';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError, Errors } from '../../errors.js';
import type { App } from '../../http/types.js';
import { badRequest } from './errors.js';
import { jsonParam } from './params.js';

const tooLarge = (): AppError => new AppError(Errors.payloadTooLarge);

/** The parser's limits for a body of at most `limit` bytes. */
const partLimits = (limit: number) => ({ fileSize: limit, files: 101, parts: 101, headerPairs: 100 });

/** One part as read: its name, its file name (busboy leaves it undefined when none), type and bytes. */
interface Part {
  fieldname: string;
  filename: unknown;
  mimetype: string;
  bytes: Buffer;
}

/** The plugin's own limit errors (parts, files, file size) answer 413, as a large body does. */
const isLimit = (error: unknown): boolean =>
  error instanceof Error && 'statusCode' in error && error.statusCode === 413;

/**
 * Fails the parse once more than `limit` bytes of body arrived, whatever they were (a chunked body
 * declares no length; preambles and part headers are no field): the plugin ends its parse on an
 * error of the request stream, with that error. Answers the function that stops counting.
 */
function capBody(raw: IncomingMessage, limit: number): () => void {
  let read = 0;
  const count = (chunk: Buffer): void => {
    read += chunk.length;
    if (read <= limit) return;
    raw.off('data', count);
    // The plugin listens from the moment it pipes; were it ever not to, an error emitted would throw.
    if (raw.listenerCount('error') > 0) raw.emit('error', tooLarge());
    else raw.destroy();
  };
  raw.on('data', count);
  return () => raw.off('data', count);
}

/**
 * A part's value. The parser hands every part over as bytes (isPartAFile below), because it would
 * decode text with replacement characters for invalid UTF-8; here text is UTF-8 or refused, as in
 * any other body, whatever charset a part declares (Telegram takes UTF-8 only).
 */
function valueOf({ fieldname, filename, mimetype, bytes }: Part): unknown {
  // What the parser itself would take for a file: a file name, or bytes declared as such.
  if (filename !== undefined || mimetype === 'application/octet-stream') return bytes;
  if (!isUtf8(bytes)) throw badRequest(`${fieldname}: invalid UTF-8`);
  const text = bytes.toString();
  return mimetype.startsWith('application/json') ? jsonParam(fieldname, text) : text;
}

/** Values by name, in order: a name given twice becomes a list (a JSON part's own array stays one value). */
class Fields {
  private readonly given = new Map<string, unknown[]>();

  add(part: Part): void {
    const value = valueOf(part);
    const values = this.given.get(part.fieldname);
    if (values === undefined) this.given.set(part.fieldname, [value]);
    else values.push(value);
  }

  /** No prototype (the parser itself refuses names such as __proto__ or constructor). */
  record(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, values] of this.given) out[name] = values.length === 1 ? values[0] : values;
    return out;
  }
}

async function fields(request: FastifyRequest, limit: number): Promise<Record<string, unknown>> {
  if (Number(request.headers['content-length']) > limit) throw tooLarge();
  const fields = new Fields();
  const parts = request.files();
  // The first step pipes the body into the parser; counting starts after, so no byte is missed.
  const first = parts.next();
  const stop = capBody(request.raw, limit);
  try {
    for (let next = await first; next.done !== true; next = await parts.next()) {
      const part = next.value;
      // The plugin types the file name as a string; busboy leaves it undefined when a part names none.
      const { filename }: { filename?: unknown } = part;
      fields.add({ fieldname: part.fieldname, filename, mimetype: part.mimetype, bytes: await part.toBuffer() });
    }
  } finally {
    stop();
  }
  return fields.record();
}

/**
 * A multipart/form-data body already read whole (a webhook's answer, capped where it was read), as
 * fields the way a request's are: parsed by busboy under the same limits, every part decoded by
 * valueOf. Throws what the parser finds wrong with the body.
 */
export async function multipartFields(body: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const fields = new Fields();
  await new Promise<void>((resolve, reject) => {
    const parser = new Busboy({
      headers: { 'content-type': contentType },
      isPartAFile: () => true,
      limits: partLimits(body.length),
    });
    const fail = (error: unknown) => {
      reject(error instanceof Error ? error : badRequest('body: malformed multipart/form-data'));
    };
    parser.on('file', (fieldname, stream, filename, _encoding, mimetype) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        fail(tooLarge());
      });
      // A body that ends inside a part errors the part's stream: unheard, it would end the process.
      stream.on('error', fail);
      stream.on('end', () => {
        try {
          fields.add({ fieldname, filename, mimetype, bytes: Buffer.concat(chunks) });
        } catch (error) {
          fail(error);
        }
      });
    });
    parser.on('partsLimit', () => {
      fail(tooLarge());
    });
    parser.on('filesLimit', () => {
      fail(tooLarge());
    });
    parser.on('error', fail);
    // Emitted once every part's stream has ended.
    parser.on('finish', resolve);
    parser.end(body);
  });
  return fields.record();
}

/** Registers the parser in the Telegram scope, for bodies of at most `limit` bytes (its routes' bodyLimit). */
export async function multipartBodies(tg: App, limit: number): Promise<void> {
  await tg.register(multipart, {
    isPartAFile: () => true,
    limits: partLimits(limit),
  });
  tg.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    try {
      request.body = await fields(request, limit);
    } catch (error) {
      // What is left of the body stays unread: the answer closes the connection (errors.ts).
      request.raw.unpipe();
      if (error instanceof AppError) throw error;
      throw isLimit(error) ? tooLarge() : badRequest('body: malformed multipart/form-data');
    }
  });
}
