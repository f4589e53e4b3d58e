// One Telegram method: its parameter and result schemas (for validation and the OpenAPI document)
// and what it does. The methods of a group live in methods/*.ts; routes.ts serves them all.
import type { Static, TSchema } from 'typebox';
import { compileCoercing, describeValidation, parameterKinds, type ValidationIssue } from '../../http/validation.js';
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

/**
 * Telegram's own texts for the failed checks its libraries and bots match on (method, field and
 * check: any method or check when not named; `*` is any array index). Other failures are described
 * as the schema says.
 */
const TELEGRAM_TEXTS: readonly {
  methods?: readonly string[];
  field: string;
  checks?: readonly string[];
  text: string;
}[] = [
  // Telegram's server reads an empty parameter as one not given (IdParam's minLength fails on "").
  { field: 'chat_id', checks: ['required', 'minLength'], text: 'chat_id is empty' },
  { field: 'user_id', checks: ['required', 'minLength'], text: 'invalid user_id specified' },
  {
    methods: ['sendMessage', 'editMessageText'],
    field: 'text',
    checks: ['required', 'minLength'],
    text: 'message text is empty',
  },
  { methods: ['sendMessage', 'editMessageText'], field: 'text', checks: ['maxLength'], text: 'message is too long' },
  { methods: ['sendPhoto'], field: 'caption', checks: ['maxLength'], text: 'message caption is too long' },
  { methods: ['setMyCommands'], field: 'commands.*.command', text: 'BOT_COMMAND_INVALID' },
];

/** The failed check's field ("commands.*.command"; a missing one named) and the check. */
function failedCheck(issue: ValidationIssue): { field: string; check: string } {
  const path = (issue.instancePath ?? '').split('/').filter(Boolean);
  const missing = issue.params?.requiredProperties ?? issue.params?.missingProperty;
  const named: unknown = Array.isArray(missing) ? missing[0] : missing;
  if (issue.keyword === 'required' && typeof named === 'string') path.push(named);
  return { field: path.map((p) => (/^\d+$/.test(p) ? '*' : p)).join('.'), check: issue.keyword ?? '' };
}

/** A failed validation in Telegram's words where it has its own, else as the schema describes it. */
function describe(method: string, issues: readonly ValidationIssue[]): string {
  const first = issues[0];
  const failed = first === undefined ? undefined : failedCheck(first);
  const own = TELEGRAM_TEXTS.find(
    (t) =>
      failed !== undefined &&
      t.field === failed.field &&
      (t.methods?.includes(method) ?? true) &&
      (t.checks?.includes(failed.check) ?? true),
  );
  return own?.text ?? describeValidation('', issues).replace(/^\./, '');
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
  // As Telegram's server: `timeout=10.0` is 10 (python-telegram-bot sends a float as given).
  const validate = compileCoercing(m.params, 'any-number');
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
      if (!validate(params)) throw badRequest(describe(m.name, validate.errors ?? []));
      return m.run(call, params);
    },
  };
}
