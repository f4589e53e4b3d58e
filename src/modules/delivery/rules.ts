// Which bots receive a user's message (seed-api.md, Events, delivery rules table). Privacy and
// group membership are checked by the caller; this is the table itself.

/** Ordinary messages are plain text and commands; every other kind is a variant. */
export const ORDINARY_KINDS: ReadonlySet<string> = new Set(['text', 'command']);

export interface IncomingMessage {
  chatType: 'private' | 'group';
  kind: string;
  mentionUserIds: readonly string[];
}

export function deliverable(m: IncomingMessage, botUserId: string, listensToGroupMessages: boolean): boolean {
  if (m.chatType === 'private') return true;
  if (listensToGroupMessages) return true;
  return ORDINARY_KINDS.has(m.kind) && m.mentionUserIds.includes(botUserId);
}
