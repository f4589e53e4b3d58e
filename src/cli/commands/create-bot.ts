import * as rules from '../../lib/input-rules.js';
import { parse, type Command } from '../io.js';
import { OWNED, ownerAndName, printCreated, ruled } from './checks.js';

export const createBotCommand: Command = {
  name: 'create-bot',
  summary: 'create a bot (at most 5 per owner) and print its credentials as JSON',
  usage: 'create-bot --owner <user_id> --name <name> [--description <text>]',
  run(args, io) {
    const v = parse(this, args, { ...OWNED, description: { type: 'string' } });
    const { owner, name } = ownerAndName(this, v);
    const description = ruled(this, () => rules.description(v.description ?? '', '--description'));
    return printCreated(io, (s) => s.apps.createBot({ owner_user_id: owner, name, description }));
  },
};
