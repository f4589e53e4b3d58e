/** A JSON array of strings as stored by us (mention lists); anything else reads as empty. */
export function parseIdList(json: string): string[] {
  const v: unknown = JSON.parse(json);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
