// Inline keyboards on bot messages: rows of buttons, with an optional keyboard-level font size
// and colour (decisions.md section 7). One client library spells `url` as `u_r_l`; both are
// accepted and stored as `url`. Client libraries marshal unset fields as empty strings, so an
// empty string means "not given" everywhere in a keyboard.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';

const Link = Type.String({ maxLength: 2048 });
const Label = Type.String({ maxLength: 256 });
const LoginUrl = Type.Object(
  {
    url: Link,
    forward_text: Type.Optional(Label),
    bot_username: Type.Optional(Type.String({ maxLength: 64 })),
    request_write_access: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const Button = Type.Object(
  {
    text: Type.Optional(Label),
    url: Type.Optional(Link),
    u_r_l: Type.Optional(Link),
    callback_data: Type.Optional(Label),
    sub_text: Type.Optional(Label),
    sub_text_color: Type.Optional(Type.String({ maxLength: 32 })),
    // Echoed in the form it was sent: a URL string, or the object form.
    login_url: Type.Optional(Type.Union([Link, LoginUrl])),
  },
  { additionalProperties: false },
);
const Keyboard = Type.Object(
  {
    inline_keyboard: Type.Array(Type.Array(Button, { maxItems: 10 }), { maxItems: 20 }),
    font_size: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Number({ minimum: 0, maximum: 1000 })])),
    font_color: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);
const check = Compile(Keyboard);

/** The schema of a keyboard as parseKeyboard leaves it (and the outbox stores it), for responses: `u_r_l` became `url`. */
export const storedKeyboardSchema = (description: string) =>
  Type.Object(
    { ...Keyboard.properties, inline_keyboard: Type.Array(Type.Array(Type.Omit(Button, ['u_r_l']))) },
    { description },
  );

/**
 * The fields of a keyboard and of a button that the platform acts on, for surfaces whose clients
 * send others that are to be ignored (the Telegram surface: Telegram ignores them).
 */
export const KEYBOARD_FIELDS: ReadonlySet<string> = new Set(Object.keys(Keyboard.properties));
export const BUTTON_FIELDS: ReadonlySet<string> = new Set(Object.keys(Button.properties));

type ButtonInput = Static<typeof Button>;
export type KeyboardButton = Omit<ButtonInput, 'u_r_l'>;
export type InlineKeyboard = Omit<Static<typeof Keyboard>, 'inline_keyboard'> & { inline_keyboard: KeyboardButton[][] };
export type KeyboardResult = { ok: true; keyboard: InlineKeyboard | null } | { ok: false; error: string };

const SHAPE = 'reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}';

/** A copy without the fields that are absent or the empty string. */
function withoutEmpty<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined)) as Partial<T>;
}

const https = (u: string): boolean => /^https:\/\/[^\s/]+/i.test(u);

function normalizeButton(input: ButtonInput): KeyboardButton | undefined {
  const { u_r_l, ...button } = withoutEmpty(input);
  const b: KeyboardButton = u_r_l !== undefined && button.url === undefined ? { ...button, url: u_r_l } : button;
  // A button shows something: its text or its sub text.
  return b.text === undefined && b.sub_text === undefined ? undefined : b;
}

const linksOf = (b: KeyboardButton): string[] => {
  const login = typeof b.login_url === 'object' ? b.login_url.url : b.login_url;
  return [b.url, login].filter((l): l is string => l !== undefined);
};

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
  if (!check.Check(value)) return { ok: false, error: SHAPE };
  const rows: KeyboardButton[][] = [];
  for (const row of value.inline_keyboard) {
    const buttons = row.map(normalizeButton);
    if (buttons.some((b) => b === undefined)) return { ok: false, error: SHAPE };
    rows.push(buttons.filter((b) => b !== undefined));
  }
  if (rows.flat().some((b) => linksOf(b).some((l) => !https(l)))) {
    return { ok: false, error: 'reply_markup: button links must start with https://' };
  }
  const style = withoutEmpty({ font_size: value.font_size, font_color: value.font_color });
  return { ok: true, keyboard: { ...style, inline_keyboard: rows } };
}

/** A stored (or received) keyboard, or null when there is none or it no longer reads as one. */
export const keyboardOf = (markup: unknown): InlineKeyboard | null => {
  const parsed = parseKeyboard(markup);
  return parsed.ok ? parsed.keyboard : null;
};
