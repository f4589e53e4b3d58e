// Inline keyboards on bot messages: rows of buttons. One client library spells `url` as
// `u_r_l`; both are accepted and stored as `url`.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';

const Button = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 256 }),
    url: Type.Optional(Type.String({ maxLength: 2048 })),
    u_r_l: Type.Optional(Type.String({ maxLength: 2048 })),
    callback_data: Type.Optional(Type.String({ maxLength: 256 })),
    sub_text: Type.Optional(Type.String({ maxLength: 256 })),
    sub_text_color: Type.Optional(Type.String({ maxLength: 32 })),
    login_url: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);
const Keyboard = Type.Object(
  { inline_keyboard: Type.Array(Type.Array(Button, { maxItems: 10 }), { maxItems: 20 }) },
  { additionalProperties: false },
);
const check = Compile(Keyboard);

export type InlineKeyboard = Static<typeof Keyboard>;
export type KeyboardResult = { ok: true; keyboard: InlineKeyboard | null } | { ok: false; error: string };

const https = (u: string): boolean => /^https:\/\/[^\s/]+/i.test(u);

/** Accepts the keyboard as an object or as JSON text; the literal `null` and `[]` mean none. */
export function parseKeyboard(input: unknown): KeyboardResult {
  if (input === undefined || input === null || input === '' || input === 'null' || input === '[]') {
    return { ok: true, keyboard: null };
  }
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return { ok: false, error: 'reply_markup: malformed JSON' };
    }
  }
  if (!check.Check(value)) return { ok: false, error: 'reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}' };
  const rows = value.inline_keyboard.map((row) =>
    row.map(({ u_r_l, ...button }) =>
      u_r_l !== undefined && button.url === undefined ? { ...button, url: u_r_l } : button,
    ),
  );
  for (const button of rows.flat()) {
    for (const link of [button.url, button.login_url]) {
      if (link !== undefined && !https(link))
        return { ok: false, error: 'reply_markup: button links must start with https://' };
    }
  }
  return { ok: true, keyboard: { inline_keyboard: rows } };
}
