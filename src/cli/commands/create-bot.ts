import { json, parse, required, UsageError, withServices, type Command } from '../io.js';
import { checkName, checkOwner } from './checks.js';

export const createBotCommand: Command = {
  name: 'create-bot',
  summary: 'create a bot (at most 5 per owner) and print its credentials as JSON',
  usage: 'create-bot --owner <user_id> --name <name> [--description <text>]',
  async run(args, io) {
    const v = parse(this, args, {
      owner: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
    });
    const owner = checkOwner(this, required(this, v.owner, 'owner'));
    const name = checkName(this, required(this, v.name, 'name'));
    if (v.description !== undefined && v.description.length > 512) {
      throw new UsageError('--description is at most 512 characters', this);
    }
    const credentials = await withServices(io, (s) =>
      s.apps.createBot({
        owner_user_id: owner,
        name,
        ...(v.description !== undefined ? { description: v.description } : {}),
      }),
    );
    io.stdout.write(json(credentials));
    return 0;
  },
};
