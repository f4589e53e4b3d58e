// What the assistant says. Kept apart from the conversation logic so wording changes touch one file.
import { AppError, Errors } from '../../errors.js';
import type { GroupInvitePolicy, Permission, PrivateMessagePolicy } from '../../db/types.js';
import type { BotView } from '../developers/index.js';

export const helpText = (siteUrl: string): string =>
  [
    'I can help you create and manage bots.',
    '',
    '/newbot - create a new bot',
    '/mybots - list your bots',
    "/token - show a bot's App Key",
    "/revoke - reset a bot's App Key (the old one stops working at once)",
    "/resetsecret - reset a bot's App Secret",
    '/setwebhook - receive updates at an https URL (webhook mode)',
    '/deletewebhook - clear the webhook and receive by long polling',
    '/setprivacy - who may message the bot and invite it to groups',
    '/apply - apply for a permission',
    '/info - level, EVM address, settings and permissions of a bot',
    "/setname, /setdescription, /setavatar - edit a bot's profile",
    '/deletebot - about deleting bots',
    '/cancel - stop what we are doing',
    '',
    `The developer site does all of this too: ${siteUrl}`,
  ].join('\n');

export const PRIVATE_CHOICES: Record<string, PrivateMessagePolicy> = {
  '1': 'following',
  following: 'following',
  '2': 'everyone',
  everyone: 'everyone',
  '3': 'friends',
  friends: 'friends',
};
export const INVITE_CHOICES: Record<string, GroupInvitePolicy> = {
  '1': 'everyone',
  everyone: 'everyone',
  '2': 'following',
  following: 'following',
};
export const PERMISSION_CHOICES: Record<string, Permission> = {
  '1': 'listen_group_messages',
  listen_group_messages: 'listen_group_messages',
  '2': 'subscription_account',
  subscription_account: 'subscription_account',
  '3': 'publish_bot',
  publish_bot: 'publish_bot',
};

const PRIVATE_WORDS: Record<PrivateMessagePolicy, string> = {
  following: 'people the bot follows',
  everyone: 'everyone',
  friends: 'friends',
};
const INVITE_WORDS: Record<GroupInvitePolicy, string> = {
  everyone: 'everyone',
  following: 'people the bot follows',
};
export const PERMISSION_WORDS: Record<Permission, string> = {
  listen_group_messages: 'listen to group messages',
  subscription_account: 'subscription account',
  publish_bot: 'publish bot',
};

export const ASK_TEXT = {
  webhook_url:
    'Send the https:// URL that should receive the updates. Optionally add "flat" after it for the older callback format.',
  private_messages:
    'Who may send the bot private messages?\n1. following - people the bot follows\n2. everyone\n3. friends',
  group_invites: 'Who may invite the bot to groups?\n1. everyone\n2. following - people the bot follows',
  permission:
    "Which permission? Each needs the platform's review.\n1. listen_group_messages - listen to group messages\n2. subscription_account - subscription account\n3. publish_bot - publish bot",
  name: 'Send the new name.',
  description: 'Send the new description.',
  avatar: 'Send the https:// address of the new avatar image, or "none" to remove it.',
} as const;

export function botInfo(b: BotView): string {
  const applications = b.applications.map(
    (a) => `${PERMISSION_WORDS[a.permission]}: ${a.status}${a.note === null ? '' : ` (${a.note})`}`,
  );
  return [
    `${b.name} (bot id ${b.bot_user_id})`,
    ...(b.description === '' ? [] : [`Description: ${b.description}`]),
    `Level: ${b.level}`,
    `EVM address: ${b.evm_address}`,
    b.mode === 'webhook'
      ? `Receiving: webhook at ${b.webhook_url ?? ''} (${b.payload_format} format)`
      : 'Receiving: long polling (getUpdates)',
    `Private messages from: ${PRIVATE_WORDS[b.private_messages]}`,
    `Group invites from: ${INVITE_WORDS[b.group_invites]}`,
    `Permissions: ${b.permissions.length === 0 ? 'none' : b.permissions.map((p) => PERMISSION_WORDS[p]).join(', ')}`,
    ...(applications.length === 0 ? [] : ['Applications:', ...applications.map((a) => `- ${a}`)]),
  ].join('\n');
}

export const privacyText = (b: Pick<BotView, 'private_messages' | 'group_invites'>): string =>
  `Private messages from: ${PRIVATE_WORDS[b.private_messages]}. Group invites from: ${INVITE_WORDS[b.group_invites]}.`;

/** A refusal of the service, said to the user. */
export function explain(e: AppError): string {
  switch (e.def) {
    case Errors.botLimitReached:
      return 'You already own 5 bots, the most one account may have. Bots cannot be deleted, so no more can be created.';
    case Errors.botNotDeletable:
      return 'Bots cannot be deleted: once created, a bot stays. You can still rename it, change its description and settings, reset its keys or clear its webhook.';
    case Errors.invalidRequest:
      return `That won't do: ${e.detail ?? e.def.message}. Try again, or /cancel.`;
    case Errors.paramError:
      return `That URL can't be used: ${(e.detail ?? e.def.message).replace(/^url: /, '')}. Try again, or /cancel.`;
    default:
      return `Sorry, ${e.def.message}.`;
  }
}
