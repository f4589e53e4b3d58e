// One set of rules for what a developer may type (src/lib/input-rules.ts), on every front door:
// the operator API and the CLI refuse what the developer site and the assistant refuse, with the
// same words, and keep what they accept in the same form.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Work } from '../src/db/work.js';
import { AppError } from '../src/errors.js';
import * as rules from '../src/lib/input-rules.js';
import { ASSISTANT_NAME } from '../src/lib/input-rules.js';
import { checkWebhookUrl, INSECURE_REFUSED } from '../src/modules/delivery/webhook-url.js';
import { adminHeaders, describeStores } from './helpers/app.js';
import { runCaptured } from './helpers/cli.js';
import { createUsers, type TestUser } from './helpers/factories.js';

const HIDDEN_WORDS = 'must not contain invisible or direction-changing characters';
const ASSISTANT_WORDS = "must not be the assistant's name";

/** Inputs the developer site refuses, with the words of the refusal. */
const APP_REFUSALS: [string, { name: string; redirect_uris: string[] }, string][] = [
  ['a control character in the name', { name: 'two\nlines', redirect_uris: [] }, 'name: must be one line of text'],
  ['a blank name', { name: '   ', redirect_uris: [] }, 'name: must not be empty'],
  ['a line separator in the name', { name: 'A\u2028B', redirect_uris: [] }, 'name: must be one line of text'],
  ['a name of a Hangul filler', { name: '\u3164', redirect_uris: [] }, 'name: must contain a visible character'],
  [
    'a redirect URI with a fragment',
    { name: 'Shop', redirect_uris: ['https://shop.example/cb#x'] },
    'redirect_uris: must not contain a fragment (#)',
  ],
  [
    'a redirect URI with an empty fragment',
    { name: 'Shop', redirect_uris: ['https://shop.example/cb#'] },
    'redirect_uris: must not contain a fragment (#)',
  ],
  [
    'a redirect URI with a space',
    { name: 'Shop', redirect_uris: ['https://shop.example/a b'] },
    'redirect_uris: must not contain spaces',
  ],
  ['a redirect URI without a host', { name: 'Shop', redirect_uris: ['https://'] }, 'redirect_uris: is not a valid URL'],
  // The authorize page compares as typed: clients send the scheme in lower case, with two slashes.
  [
    'a redirect URI with an upper-case scheme',
    { name: 'Shop', redirect_uris: ['HTTPS://shop.example/cb'] },
    'redirect_uris: must start with https:// or http://',
  ],
  [
    'a redirect URI with one slash after the scheme',
    { name: 'Shop', redirect_uris: ['https:/shop.example/cb'] },
    'redirect_uris: must start with https:// or http://',
  ],
];

const BOT_REFUSALS: [string, { name: string }, string][] = [
  ['a tab in the name', { name: 'a\tb' }, 'name: must be one line of text'],
  ['a DEL in the name', { name: 'bot\u007f' }, 'name: must be one line of text'],
  ['a blank name', { name: ' ' }, 'name: must not be empty'],
  ['a NEL in the name', { name: 'A\u0085B' }, 'name: must be one line of text'],
  ['a right-to-left override', { name: 'A\u202Eevil' }, `name: ${HIDDEN_WORDS}`],
  ['a zero-width space alone', { name: '\u200b' }, `name: ${HIDDEN_WORDS}`],
  ["the assistant's name in another case", { name: ' bot ASSISTANT ' }, `name: ${ASSISTANT_WORDS}`],
];

/** The refusal `fn` threw, as "id: detail". */
async function refusal(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return `${e.def.id}: ${e.detail ?? ''}`;
    throw e;
  }
  return assert.fail('expected a refusal');
}

describe('input rules (src/lib/input-rules.ts)', () => {
  it('names are one trimmed line of 1 to 64 code points', () => {
    assert.equal(rules.name('  Helper  '), 'Helper');
    assert.equal(rules.name('🤖'.repeat(64)), '🤖'.repeat(64));
    assert.throws(() => rules.name('x'.repeat(65)), { message: 'invalid request: name: at most 64 characters' });
    assert.throws(() => rules.name('a\rb', '--name'), { message: 'invalid request: --name: must be one line of text' });
  });

  it('names refuse what breaks the line, hides or reorders text, shows nothing, or poses as the assistant', () => {
    const refused: [string, string][] = [
      ['\u200b', HIDDEN_WORDS],
      ['A\u2028B\u0085C\u202Eevil', 'must be one line of text'],
      ['A\u0085B', 'must be one line of text'],
      ['A\u009fB', 'must be one line of text'],
      ['A\u2029B', 'must be one line of text'],
      ...['\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\u061c', '\u2060'].map((c): [string, string] => [
        `a${c}b`,
        HIDDEN_WORDS,
      ]),
      ['Bot\ufeffAssistant', HIDDEN_WORDS],
      ['\u3164', 'must contain a visible character'],
      ['\u2800 \u3164', 'must contain a visible character'],
      ['\u00ad\ufe0f', 'must contain a visible character'],
      ['\u200c\u200d', 'must contain a visible character'],
      ['Bot \u200dAssistant', ASSISTANT_WORDS],
      ['\ue000', 'must contain a visible character'],
      ['\ufeff \u2028', 'must not be empty'],
      [ASSISTANT_NAME, ASSISTANT_WORDS],
      ['  bot assistant ', ASSISTANT_WORDS],
      ['BOT\u00a0 ASSISTANT', ASSISTANT_WORDS],
      ['\uff22\uff4f\uff54 \uff21\uff53\uff53\uff49\uff53\uff54\uff41\uff4e\uff54', ASSISTANT_WORDS],
      ['Bot Assis\u00adtant', ASSISTANT_WORDS],
    ];
    for (const [text, words] of refused) {
      assert.throws(() => rules.name(text), { message: `invalid request: name: ${words}` }, JSON.stringify(text));
    }
    const accepted: [string, string][] = [
      ['Bot Assistant 2', 'Bot Assistant 2'],
      ['My Assistant', 'My Assistant'],
      ['\u00a0Caf\u00e9\u3000', 'Caf\u00e9'],
      ['\u2764\ufe0f', '\u2764\ufe0f'],
      ['\u05e9\u05dc\u05d5\u05dd', '\u05e9\u05dc\u05d5\u05dd'],
      ['\u0301', '\u0301'],
      ['\u2800x', '\u2800x'],
      // The joiners inside a Persian word and an emoji family.
      ['\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'],
      ['\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}'],
    ];
    for (const [text, kept] of accepted) assert.equal(rules.name(text), kept, JSON.stringify(text));
  });

  it('an accepted name holds none of the refused code points and shows a character; lookalikes of the assistant never pass', () => {
    // Kept apart from the rule's own expressions: the code points the rule promises to refuse.
    const refusedPoints = [
      [0x00, 0x1f],
      [0x7f, 0x9f],
      [0x2028, 0x2029],
      [0x200b, 0x200b],
      [0x200e, 0x200f],
      [0x202a, 0x202e],
      [0x2066, 0x2069],
      [0x061c, 0x061c],
      [0x2060, 0x2060],
      [0xfeff, 0xfeff],
    ] as const;
    const refusedPoint = (c: string) =>
      refusedPoints.some(([lo, hi]) => (c.codePointAt(0) ?? 0) >= lo && (c.codePointAt(0) ?? 0) <= hi);
    const shows = (c: string) =>
      /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(c) && !/\p{Default_Ignorable_Code_Point}/u.test(c) && c !== '\u2800';
    const tricky = fc.constantFrom(
      ...refusedPoints.flatMap(([lo, hi]) => [lo, hi]).map((p) => String.fromCodePoint(p)),
      ' ',
      '\u00a0',
      '\u3000',
      '\u3164',
      '\u2800',
      '\u00ad',
      '\ufe0f',
      '\ue000',
      '\u200c',
      '\u200d',
      'a',
      '\u00e9',
      '\u0301',
    );
    const text = fc
      .array(fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 2 })), { maxLength: 8 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(text, (t) => {
        let n: string;
        try {
          n = rules.name(t);
        } catch (e) {
          assert.ok(e instanceof AppError && e.def.id === 'invalid_request', String(e));
          return;
        }
        assert.equal(n, t.trim());
        const points = Array.from(n);
        assert.ok(!points.some(refusedPoint), JSON.stringify(n));
        assert.ok(points.some(shows), JSON.stringify(n));
      }),
      { numRuns: 2000 },
    );
    // The assistant's name with each letter in either case or fullwidth, spaced out: always refused.
    const fullwidth = (c: string) => (c === ' ' ? '\u3000' : String.fromCodePoint((c.codePointAt(0) ?? 0) + 0xfee0));
    const lookalike = fc
      .tuple(
        fc.array(
          fc.constantFrom<(c: string) => string>(
            (c) => c.toUpperCase(),
            (c) => c.toLowerCase(),
            fullwidth,
          ),
          {
            minLength: ASSISTANT_NAME.length,
            maxLength: ASSISTANT_NAME.length,
          },
        ),
        fc.constantFrom('', ' ', '\u00a0 '),
      )
      .map(([styles, pad]) => pad + Array.from(ASSISTANT_NAME, (c, i) => (styles[i] ?? fullwidth)(c)).join('') + pad);
    fc.assert(
      fc.property(lookalike, (t) => {
        assert.throws(() => rules.name(t), { message: `invalid request: name: ${ASSISTANT_WORDS}` }, JSON.stringify(t));
      }),
    );
  });

  it('a Webhook URL is held to the same text rules as a redirect URI, with its own word for http://', async () => {
    assert.equal(rules.webUrl('https://a.example/a b', ['https:']), 'must not contain spaces');
    assert.equal(await checkWebhookUrl('https://a.example/a b', true), 'must not contain spaces');
    assert.equal(await checkWebhookUrl(`https://a.example/${'x'.repeat(2048)}`, true), 'at most 2048 characters');
    assert.equal(rules.webUrl('http://a.example/', ['https:']), 'must start with https://');
    assert.equal(rules.webUrl('http://a.example/', ['https:'], INSECURE_REFUSED), INSECURE_REFUSED);
    assert.equal(String(rules.webUrl('https://a.example/cb', ['https:'])), 'https://a.example/cb');
  });
});

await describeStores('the operator API follows the developer site', (t) => {
  const s = () => t().services;
  const run = <T>(fn: (w: Work) => Promise<T>) => s().work.run(fn);
  const post = async (url: string, payload: Record<string, unknown>) => {
    const res = await t().app.inject({ method: 'POST', url, headers: adminHeaders, payload });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
  };
  const count = async (table: 'apps' | 'bots') => (await s().db.k.selectFrom(table).select('app_id').execute()).length;
  let owner: TestUser;
  /** Each case is refused by the site (the developers service) and by POST /internal/v1/<table> in the same words; nothing is created. */
  const refusedAlike = async <I extends object>(
    table: 'apps' | 'bots',
    site: (w: Work, input: I) => Promise<unknown>,
    cases: readonly [string, I, string][],
  ) => {
    const before = await count(table);
    for (const [what, input, words] of cases) {
      assert.equal(await refusal(() => run((w) => site(w, input))), `invalid_request: ${words}`, what);
      assert.deepEqual(
        await post(`/internal/v1/${table}`, { owner_user_id: owner.user_id, ...input }),
        { status: 400, body: { error: 'invalid_request', message: words } },
        what,
      );
    }
    assert.equal(await count(table), before);
  };

  it('POST /internal/v1/apps refuses what the site refuses: 400 invalid_request with the same words', async () => {
    [owner] = (await createUsers(t().app, 1)) as [TestUser];
    await refusedAlike('apps', (w, input) => s().developers.createApp(w, owner.user_id, input), APP_REFUSALS);
  });

  it('POST /internal/v1/bots refuses what the site and the assistant refuse, in the same words', async () => {
    await refusedAlike('bots', (w, input) => s().developers.createBot(w, owner.user_id, input), BOT_REFUSALS);
  });

  it('refuses at the schema what no rule could accept (16 times the limits), before the service', async () => {
    const huge = await post('/internal/v1/apps', {
      owner_user_id: owner.user_id,
      name: 'n'.repeat(60_000),
      redirect_uris: ['https://shop.example/cb'],
    });
    assert.deepEqual(huge, {
      status: 400,
      body: { error: 'invalid_request', message: 'body.name: must NOT have more than 1024 characters' },
    });
    const many = await post('/internal/v1/apps', {
      owner_user_id: owner.user_id,
      name: 'Shop',
      redirect_uris: Array.from({ length: 321 }, (_, i) => `https://shop.example/${i}`),
    });
    assert.deepEqual(many, {
      status: 400,
      body: { error: 'invalid_request', message: 'body.redirect_uris: must NOT have more than 320 items' },
    });
  });

  it('keeps names, descriptions and redirect URIs in the form the site keeps them', async () => {
    // Limits apply to the trimmed text without repeats, as for the site and the CLI.
    const longest = 'S'.repeat(64);
    const app = await post('/internal/v1/apps', {
      owner_user_id: owner.user_id,
      name: `  ${longest}  `,
      redirect_uris: [' https://shop.example/cb', ...Array<string>(21).fill('https://shop.example/cb')],
    });
    assert.equal(app.status, 201, JSON.stringify(app.body));
    const appId = String(app.body.app_id);
    const view = await s().developers.app(owner.user_id, appId);
    assert.equal(view.name, longest);
    assert.deepEqual(view.redirect_uris, ['https://shop.example/cb']);
    const bot = await post('/internal/v1/bots', {
      owner_user_id: owner.user_id,
      name: ' Helper ',
      description: ` ${'d'.repeat(512)} `,
    });
    assert.equal(bot.status, 201, JSON.stringify(bot.body));
    const short = await post('/internal/v1/bots', {
      owner_user_id: owner.user_id,
      name: ' Helper ',
      description: ' Hi. ',
    });
    assert.equal(short.status, 201);
    const row = await s()
      .db.k.selectFrom('bots')
      .innerJoin('users', 'users.user_id', 'bots.bot_user_id')
      .select(['users.name', 'bots.description'])
      .where('bots.bot_user_id', '=', String(short.body.bot_user_id))
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { name: 'Helper', description: 'Hi.' });
  });
});

describe('the CLI follows the developer site', () => {
  // A store the refusals never open: a command that reached it would fail with exit 1, not 2.
  const dir = mkdtempSync(join(tmpdir(), 'rules-test-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'missing', 'platform.db')}`, KEY_FILE: join(dir, 'key') };
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  /** The exit code, stdout and the first line of stderr (the refusal; the usage follows). */
  const cli = async (...argv: string[]) => {
    const r = await runCaptured(argv, { env });
    return { ...r, stderr: r.stderr.split('\n')[0] };
  };

  it('create-app refuses, before the store opens, what the site refuses (bad usage, exit 2)', async () => {
    for (const [what, input, words] of APP_REFUSALS) {
      const uris = input.redirect_uris.flatMap((u) => ['--redirect-uri', u]);
      const flagged = words.replace(/^name:/, '--name:').replace(/^redirect_uris:/, '--redirect-uri:');
      assert.deepEqual(
        await cli('create-app', '--owner', 'someone', '--name', input.name, ...uris),
        { code: 2, stdout: '', stderr: flagged },
        what,
      );
    }
  });

  it('create-bot refuses, before the store opens, what the site refuses (bad usage, exit 2)', async () => {
    for (const [what, input, words] of BOT_REFUSALS) {
      assert.deepEqual(
        await cli('create-bot', '--owner', 'someone', '--name', input.name),
        { code: 2, stdout: '', stderr: words.replace(/^name:/, '--name:') },
        what,
      );
    }
    assert.deepEqual(await cli('create-bot', '--owner', 'someone', '--name', 'b', '--description', 'd'.repeat(513)), {
      code: 2,
      stdout: '',
      stderr: '--description: at most 512 characters',
    });
  });
});
