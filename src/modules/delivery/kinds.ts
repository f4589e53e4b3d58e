// allowed_updates as Telegram's Bot API server reads it (both surfaces take it): a name is read in
// any case, one that names no kind of Update is ignored, and a list naming no kind at all means
// every kind. Taken literally, ["Message"] or a misspelt name matched nothing, and every pending
// Update was confirmed unsent.

/** The kinds of Update Telegram names (the platform sends `message` and `callback_query`). */
const UPDATE_KINDS: ReadonlySet<string> = new Set([
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'message_reaction',
  'message_reaction_count',
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'purchased_paid_media',
  'poll',
  'poll_answer',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
  'managed_bot',
]);

/** The kinds a list of names asks for, each once, in lower case; undefined for every kind. */
export function updateKinds(names: readonly unknown[] | undefined): string[] | undefined {
  if (names === undefined) return undefined;
  const kinds = new Set<string>();
  for (const name of names) {
    const kind = typeof name === 'string' ? name.toLowerCase() : undefined;
    if (kind !== undefined && UPDATE_KINDS.has(kind)) kinds.add(kind);
  }
  return kinds.size === 0 ? undefined : [...kinds];
}

/** The kinds kept as JSON text (the bot's allowed_updates column); undefined for every kind. */
export const keptKinds = (json: string | null): string[] | undefined => {
  if (json === null) return undefined;
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? updateKinds(parsed) : undefined;
};
