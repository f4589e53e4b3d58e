// One Telegram method: its parameter and result schemas (for validation and the OpenAPI document)
// and what it does. The methods of a group live in methods/*.ts; routes.ts serves them all.
import type { Static, TSchema } from 'typebox';
import { compileCoercing, describeValidation, parameterKinds } from '../../http/validation.js';
import type { Services } from '../../services.js';
import type { Credential } from '../auth/index.js';
import { badRequest } from './errors.js';

export interface MethodCall {
  s: Services;
  credential: Credential;
  /** The bot's platform id and its Telegram number. */
  botId: string;
  botNumber: number;
  /** The Idempotency-Key of the call, when it came over HTTP with one; read (and checked) by sends only. */
  idempotencyKey(): string | undefined;
  /** Marks the answer as a replay of an earlier send with the same key. */
  replayed(): void;
}

export interface TelegramMethod {
  name: string;
  summary: string;
  params: TSchema;
  result: TSchema;
  /** Checks the merged parameters (coercing form text to the schema's types) and runs the method. */
  call(call: MethodCall, params: Record<string, unknown>): Promise<unknown>;
}

/** Telegram reads a boolean given as text as true for "true", "yes" or "1" in any case, else false. */
const telegramBool = (text: string): boolean => /^(?:true|yes|1)$/i.test(text);

export function method<P extends TSchema, R extends TSchema>(m: {
  name: string;
  summary: string;
  params: P;
  result: R;
  run(call: MethodCall, params: Static<P>): Promise<Static<R>>;
}): TelegramMethod {
  const validate = compileCoercing(m.params);
  const flags = parameterKinds(m.params).booleans;
  return {
    name: m.name,
    summary: m.summary,
    params: m.params,
    result: m.result,
    call: (call, params) => {
      for (const key of flags) {
        const value = params[key];
        if (typeof value === 'string') params[key] = telegramBool(value);
      }
      if (!validate(params)) throw badRequest(describeValidation('', validate.errors ?? []).replace(/^\./, ''));
      return m.run(call, params);
    },
  };
}
