// Body parsers for JSON and forms that refuse text which is not UTF-8, instead of decoding it with
// replacement characters; malformed bodies become parameter errors of the request's surface.
import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { paramErrorFor } from './errors.js';
import type { App } from './types.js';

/** Whether every percent-escape in `text` is well formed and decodes to UTF-8. */
export function decodesCleanly(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The largest body of a Telegram-surface call, and of a Telegram-format webhook's answer that is a
 * method call (every other body gets app.ts's BODY_LIMIT, 64 KiB). python-telegram-bot and aiogram
 * put structured fields (reply_markup, commands) in forms as JSON with non-ASCII escaped, so a
 * Cyrillic character costs 8 bytes (\u0431 as %5Cu0431): a setMyCommands of 100 commands with
 * 256-character descriptions is about 210 KB, which Telegram takes.
 */
export const TELEGRAM_BODY_LIMIT = 256 * 1024;

const invalid = (request: FastifyRequest, detail: string) => new AppError(paramErrorFor(request.url), detail);

/** A form as fields; a field given twice becomes a list. */
function formFields(text: string): Record<string, string | string[]> {
  // No prototype: a field named __proto__ is just a field.
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = out[key];
    // Appended in place: a copy per repeat costs the square of the repeats (32,000 took 7 s).
    if (seen === undefined) out[key] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[key] = [seen, value];
  }
  return out;
}

/** A form body as fields, the way every request's is read; undefined when it is not UTF-8 or has a bad percent-escape. */
export function formBody(body: Buffer): Record<string, string | string[]> | undefined {
  const text = body.toString();
  return isUtf8(body) && decodesCleanly(text) ? formFields(text) : undefined;
}

const isJsonSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

export function registerBodyParsers(app: App): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    // Clients that set the JSON content type on every request send it with nothing for a method
    // without parameters (Telegram's server takes that as no parameters): the same as no body.
    if (body.every(isJsonSpace)) done(null, undefined);
    else if (isUtf8(body)) void json(request, body.toString(), done);
    else done(invalid(request, 'body: invalid UTF-8'), undefined);
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (request, body: Buffer, done) => {
      const fields = formBody(body);
      if (fields !== undefined) done(null, fields);
      else done(invalid(request, 'body: malformed percent-escape or invalid UTF-8'), undefined);
    },
  );
}
