// A bot's private-message setting, for messages it sends and messages it receives alike:
// everyone, people the bot follows, or friends (people who follow each other).
import type { PrivateMessagePolicy } from '../../db/types.js';

export type Follows = (followerId: string, followedId: string) => Promise<boolean>;

export async function privateAllowed(
  policy: PrivateMessagePolicy | null,
  botUserId: string,
  otherUserId: string,
  follows: Follows,
): Promise<boolean> {
  if (policy === null || policy === 'everyone') return true;
  if (policy === 'following') return follows(botUserId, otherUserId);
  return (await follows(botUserId, otherUserId)) && (await follows(otherUserId, botUserId));
}
