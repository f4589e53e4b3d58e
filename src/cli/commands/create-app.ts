import { json, parse, required, UsageError, withServices, type Command } from '../io.js';
import { checkName, checkOwner } from './checks.js';

export const createAppCommand: Command = {
  name: 'create-app',
  summary: 'create an application (login and payment) and print its credentials as JSON',
  usage: 'create-app --owner <user_id> --name <name> [--redirect-uri <uri>]...',
  async run(args, io) {
    const v = parse(this, args, {
      owner: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
    });
    const owner = checkOwner(this, required(this, v.owner, 'owner'));
    const name = checkName(this, required(this, v.name, 'name'));
    const redirectUris = v['redirect-uri'] ?? [];
    if (redirectUris.length > 20) throw new UsageError('at most 20 --redirect-uri', this);
    for (const uri of redirectUris) {
      if (!/^https?:\/\//.test(uri) || uri.length > 2048) {
        throw new UsageError(`--redirect-uri must be an http(s) address (got "${uri}")`, this);
      }
    }
    const credentials = await withServices(io, (s) =>
      s.apps.createApp({ owner_user_id: owner, name, redirect_uris: redirectUris }),
    );
    io.stdout.write(json(credentials));
    return 0;
  },
};
