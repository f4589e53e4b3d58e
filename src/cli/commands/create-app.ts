import * as rules from '../../lib/input-rules.js';
import { parse, type Command } from '../io.js';
import { OWNED, ownerAndName, printCreated, ruled } from './checks.js';

export const createAppCommand: Command = {
  name: 'create-app',
  summary: 'create an application (login and payment) and print its credentials as JSON',
  usage: 'create-app --owner <user_id> --name <name> [--redirect-uri <uri>]...',
  run(args, io) {
    const v = parse(this, args, { ...OWNED, 'redirect-uri': { type: 'string', multiple: true } });
    const { owner, name } = ownerAndName(this, v);
    const redirectUris = ruled(this, () => rules.redirectUris(v['redirect-uri'] ?? [], '--redirect-uri'));
    return printCreated(io, (s) => s.apps.createApp({ owner_user_id: owner, name, redirect_uris: redirectUris }));
  },
};
