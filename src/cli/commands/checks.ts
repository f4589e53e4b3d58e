// The operator surface's limits on owners and names (apps/routes.ts), applied to CLI options.
import { UsageError, type Command } from '../io.js';

export function checkOwner(command: Command, owner: string): string {
  if (owner.length > 128) throw new UsageError('--owner is at most 128 characters', command);
  return owner;
}

export function checkName(command: Command, name: string): string {
  if (name.length > 64) throw new UsageError('--name is 1 to 64 characters', command);
  return name;
}
