// What create-app and create-bot share: --owner (an Id of at most 128 characters, as the operator
// API's schema says) and --name (lib/input-rules.ts), checked before the store opens, a broken rule
// being bad usage; and the new credentials printed as JSON.
import { AppError, Errors } from '../../errors.js';
import * as rules from '../../lib/input-rules.js';
import type { Services } from '../../services.js';
import { json, required, UsageError, withServices, type Command, type Io } from '../io.js';

/** The options every creating command takes, beside its own. */
export const OWNED = { owner: { type: 'string' }, name: { type: 'string' } } as const;

/** A rule of lib/input-rules.ts applied to an option (named as the rule's field): a refusal is bad usage. */
export function ruled<T>(command: Command, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof AppError && e.def === Errors.invalidRequest) throw new UsageError(e.detail ?? e.message, command);
    throw e;
  }
}

export function ownerAndName(command: Command, v: { owner?: string; name?: string }): { owner: string; name: string } {
  const owner = required(command, v.owner, 'owner');
  if (owner.length > 128) throw new UsageError('--owner is at most 128 characters', command);
  const name = required(command, v.name, 'name');
  return { owner, name: ruled(command, () => rules.name(name, '--name')) };
}

/** Creates against the platform and prints the credentials it answers. */
export async function printCreated(io: Io, create: (s: Services) => Promise<object>): Promise<number> {
  io.stdout.write(json(await withServices(io, create)));
  return 0;
}
