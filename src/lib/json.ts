const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * A mention list as stored by us: a JSON array of ids; for a bot's mention of every member of a
 * group, `{"all":true,"ids":[...]}`, the ids those of the members it names (no column of its own:
 * the flag rides with the list it qualifies). Anything else reads as no mention.
 */
export function parseMentions(json: string): { ids: string[]; all: boolean } {
  const v: unknown = JSON.parse(json);
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'ids' in v) {
    return { ids: strings(v.ids), all: 'all' in v && v.all === true };
  }
  return { ids: strings(v), all: false };
}

/** parseMentions' ids: a JSON array of strings as stored by us (mention lists); anything else reads as empty. */
export const parseIdList = (json: string): string[] => parseMentions(json).ids;

/** The mention list as parseMentions reads it. */
export const mentionsJson = (ids: readonly string[], all: boolean): string =>
  all ? JSON.stringify({ all: true, ids }) : JSON.stringify(ids);
