import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hasImage, layout, linkHrefs, parseMarkup, renderMarkup, type Markup, type Segment } from './markup.js';

/** JSON text of a tag object, as a bot would place it in the content. */
const tag = (fields: Record<string, unknown>): string => JSON.stringify(fields);

function segments(content: string): Segment[] {
  const r = parseMarkup(content);
  if (!r.ok) assert.fail(`refused ${JSON.stringify(content)}: ${r.error}`);
  return r.markup.segments;
}

function only(content: string): Segment {
  const s = segments(content);
  assert.equal(s.length, 1, JSON.stringify(s));
  const [first] = s;
  if (first === undefined) assert.fail('no segment');
  return first;
}

function error(content: string, checkText = false): string {
  const r = parseMarkup(content, { checkText });
  if (r.ok) assert.fail(`accepted ${JSON.stringify(content)}`);
  return r.error;
}

function img(fields: Record<string, unknown>): Extract<Segment, { kind: 'img' }> {
  const s = only(tag({ uitag: 'img', ...fields }));
  if (s.kind !== 'img') assert.fail(`not an image: ${s.kind}`);
  return s;
}

const font = (fields: Record<string, unknown>): Segment => only(tag({ uitag: 'font', ...fields }));

describe('scanning', () => {
  it('parses the documented example', () => {
    const content =
      'Hello {"uitag":"a","text":"our site","href":"https://ex.com"} and ' +
      '{"uitag":"font","text":"red","color":"#FF0000","bold":"true","italic":"false"}' +
      '{"uitag":"img","src":"https://ex.com/a.png","position":"head","height":"100","width":"50%"}';
    assert.deepEqual(segments(content), [
      { kind: 'text', text: 'Hello ' },
      { kind: 'a', text: 'our site', href: 'https://ex.com' },
      { kind: 'text', text: ' and ' },
      { kind: 'font', text: 'red', bold: true, italic: false, color: '#FF0000' },
      {
        kind: 'img',
        src: 'https://ex.com/a.png',
        position: 'head',
        rawPosition: 'head',
        href: null,
        height: 100,
        width: '50%',
      },
    ]);
  });

  it('keeps prose with braces as text', () => {
    for (const prose of [
      '{hello}',
      'a { b',
      'a } b',
      '{}',
      'x {"note": 1} y',
      '{"nested": {"uitag": "a"}}',
      '{x {y} "z}"}',
      'say "uitag" out loud',
      '{uitag: "a"}',
      '{ unbalanced "quote }',
      '\\{"',
    ]) {
      assert.deepEqual(segments(prose), [{ kind: 'text', text: prose }], prose);
    }
  });

  it('gives no segment for the empty string and merges text around braces', () => {
    assert.deepEqual(segments(''), []);
    assert.deepEqual(segments('a {b} c {"d":1}'), [{ kind: 'text', text: 'a {b} c {"d":1}' }]);
  });

  it('is string-aware: braces, quotes and escapes inside tag strings do not end the tag', () => {
    const text = 'a } { \\" " b';
    assert.deepEqual(segments(`x${tag({ uitag: 'font', text })}y`), [
      { kind: 'text', text: 'x' },
      { kind: 'font', text, bold: false, italic: false, color: null },
      { kind: 'text', text: 'y' },
    ]);
  });

  it('reads tags written with whitespace and JSON escapes', () => {
    assert.deepEqual(only('{ "uitag" : "a" , "text" : "\\u0041" , "href" : "https://ex.com" }'), {
      kind: 'a',
      text: 'A',
      href: 'https://ex.com',
    });
  });

  it('refuses a malformed tag, numbering it among the tags', () => {
    assert.equal(error('{"uitag":"a",}'), 'tag 1: malformed JSON');
    assert.equal(error('{"uitag":"a"'), 'tag 1: malformed JSON');
    assert.equal(error(`${tag({ uitag: 'font', text: 'x' })} {"uitag": font}`), 'tag 2: malformed JSON');
    // A stray brace before a tag swallows it into one candidate that does not parse.
    assert.equal(error(`a { b ${tag({ uitag: 'font', text: 'x' })}`), 'tag 1: malformed JSON');
  });

  it('checking text, refuses a tag whose text spells what no content may carry; stored content reads as it was', () => {
    const nul = 'q{"uitag":"font","text":"a\\u0000"}';
    assert.equal(error(nul, true), 'tag 1 (font): text must not contain U+0000');
    assert.equal(
      error('{"uitag":"a","text":"\\ud83d","href":"https://ex.com"}', true),
      'tag 1 (a): text must not contain a lone surrogate',
    );
    assert.equal(
      error('{"uitag":"a","text":"x","href":"https://ex.com/\\u0000"}', true),
      'tag 1 (a): href must not contain U+0000',
    );
    const pair = parseMarkup('{"uitag":"font","text":"\\ud83d\\ude00"}', { checkText: true });
    assert.equal(pair.ok, true, 'a pair spelled by escapes is one character');
    assert.deepEqual(parseMarkup(nul), {
      ok: true,
      markup: {
        segments: [
          { kind: 'text', text: 'q' },
          { kind: 'font', text: 'a\u0000', bold: false, italic: false, color: null },
        ],
      },
    });
  });

  it('refuses an unknown uitag', () => {
    assert.equal(error('{"uitag":"b","text":"x"}'), 'tag 1: unknown uitag "b"');
    assert.equal(error(`${tag({ uitag: 'font', text: '' })}{"uitag":"A"}`), 'tag 2: unknown uitag "A"');
    assert.equal(error('{"uitag":5}'), 'tag 1: unknown uitag 5');
    assert.equal(error('{"uitag":null}'), 'tag 1: unknown uitag null');
    assert.equal(error('{"uitag":{"x":1}}'), 'tag 1: unknown uitag (an object)');
  });

  it('refuses unknown fields in every tag', () => {
    assert.equal(error(tag({ uitag: 'font', text: 'x', colour: '#fff' })), 'tag 1 (font): unknown field "colour"');
    assert.equal(
      error(tag({ uitag: 'a', text: 'x', href: 'https://ex.com', target: '_blank' })),
      'tag 1 (a): unknown field "target"',
    );
    assert.equal(error(tag({ uitag: 'img', src: '', alt: 'x' })), 'tag 1 (img): unknown field "alt"');
    assert.equal(error('{"uitag":"img","src":"","__proto__":{}}'), 'tag 1 (img): unknown field "__proto__"');
    assert.equal(
      error(tag({ uitag: 'a', text: 'x', href: 'https://ex.com', src: '' })),
      'tag 1 (a): unknown field "src"',
    );
  });

  it('bounds the value shown in an error', () => {
    const e = error(tag({ uitag: 'x'.repeat(1000) }));
    assert.ok(e.length < 80, e);
  });
});

describe('a', () => {
  it('takes text and an https href, scheme in any case', () => {
    assert.deepEqual(only(tag({ uitag: 'a', text: 'site', href: 'https://ex.com/p?q=1' })), {
      kind: 'a',
      text: 'site',
      href: 'https://ex.com/p?q=1',
    });
    assert.deepEqual(only(tag({ uitag: 'a', text: '', href: 'HTTPS://ex.com' })), {
      kind: 'a',
      text: '',
      href: 'HTTPS://ex.com',
    });
  });

  it('requires text as a string of at most 5000 characters', () => {
    assert.equal(error(tag({ uitag: 'a', href: 'https://ex.com' })), 'tag 1 (a): text is required');
    assert.equal(error(tag({ uitag: 'a', text: 5, href: 'https://ex.com' })), 'tag 1 (a): text must be a string');
    assert.equal(error(tag({ uitag: 'a', text: null, href: 'https://ex.com' })), 'tag 1 (a): text must be a string');
    only(tag({ uitag: 'a', text: 'x'.repeat(5000), href: 'https://ex.com' }));
    assert.equal(
      error(tag({ uitag: 'a', text: 'x'.repeat(5001), href: 'https://ex.com' })),
      'tag 1 (a): text is longer than 5000 characters',
    );
  });

  it('requires an https href and refuses http and other schemes', () => {
    assert.equal(error(tag({ uitag: 'a', text: 'x' })), 'tag 1 (a): href is required');
    assert.equal(error(tag({ uitag: 'a', text: 'x', href: 1 })), 'tag 1 (a): href must be a string');
    for (const href of ['http://ex.com', '', 'ftp://ex.com', '//ex.com', 'javascript:alert(1)', ' https://ex.com']) {
      assert.equal(error(tag({ uitag: 'a', text: 'x', href })), 'tag 1 (a): href must start with https://', href);
    }
    assert.equal(
      error(`${tag({ uitag: 'font', text: 'a' })}${tag({ uitag: 'a', text: 'x', href: 'http://ex.com' })}`),
      'tag 2 (a): href must start with https://',
    );
    assert.equal(error(tag({ uitag: 'a', text: 'x', href: 'https://' })), 'tag 1 (a): href is not a valid URL');
    assert.equal(error(tag({ uitag: 'a', text: 'x', href: 'https://a b' })), 'tag 1 (a): href is not a valid URL');
  });
});

describe('font', () => {
  it('defaults to plain text without colour', () => {
    assert.deepEqual(font({ text: 'x' }), { kind: 'font', text: 'x', bold: false, italic: false, color: null });
  });

  it('reads bold and italic as the strings "true" and "false" only', () => {
    assert.deepEqual(font({ text: 'x', bold: 'true', italic: 'false' }), {
      kind: 'font',
      text: 'x',
      bold: true,
      italic: false,
      color: null,
    });
    assert.deepEqual(font({ text: 'x', bold: 'false', italic: 'true' }), {
      kind: 'font',
      text: 'x',
      bold: false,
      italic: true,
      color: null,
    });
    for (const v of [true, 'TRUE', 'yes', '1', 1, null, '']) {
      assert.equal(error(tag({ uitag: 'font', text: 'x', bold: v })), 'tag 1 (font): bold must be "true" or "false"');
      assert.equal(
        error(tag({ uitag: 'font', text: 'x', italic: v })),
        'tag 1 (font): italic must be "true" or "false"',
      );
    }
  });

  it('normalizes #RGB and #RRGGBB colours to uppercase #RRGGBB', () => {
    const color = (c: string): unknown => {
      const s = font({ text: 'x', color: c });
      return s.kind === 'font' ? s.color : undefined;
    };
    assert.equal(color('#FF0000'), '#FF0000');
    assert.equal(color('#a1b2c3'), '#A1B2C3');
    assert.equal(color('#f0a'), '#FF00AA');
    assert.equal(color('#ABC'), '#AABBCC');
    // seed-api.md: "RGB hex string"; the # is usual, not required.
    assert.equal(color('FF0000'), '#FF0000');
    assert.equal(color('a1b2c3'), '#A1B2C3');
    assert.equal(color('f0a'), '#FF00AA');
  });

  it('refuses other colour forms', () => {
    for (const c of ['red', 'FF00', '#FF00', '#GGGGGG', '#FF0000FF', '##FFF', '', 'rgb(1,2,3)', ' #fff', '0xFF0000']) {
      assert.equal(
        error(tag({ uitag: 'font', text: 'x', color: c })),
        'tag 1 (font): color must be RRGGBB or RGB in hex, with or without #',
        c,
      );
    }
    assert.equal(error(tag({ uitag: 'font', text: 'x', color: 0xff0000 })), 'tag 1 (font): color must be a string');
  });

  it('requires text as a string of at most 5000 characters', () => {
    assert.equal(error(tag({ uitag: 'font' })), 'tag 1 (font): text is required');
    assert.equal(error(tag({ uitag: 'font', text: ['x'] })), 'tag 1 (font): text must be a string');
    font({ text: '' });
    font({ text: 'x'.repeat(5000) });
    assert.equal(
      error(tag({ uitag: 'font', text: 'x'.repeat(5001) })),
      'tag 1 (font): text is longer than 5000 characters',
    );
  });
});

describe('img', () => {
  it('takes an https src, or an empty one for a placeholder', () => {
    assert.equal(img({ src: 'https://ex.com/a.png', position: 'head' }).src, 'https://ex.com/a.png');
    assert.equal(img({ src: '', position: 'head' }).src, '');
    assert.equal(error(tag({ uitag: 'img', position: 'head' })), 'tag 1 (img): src is required');
    assert.equal(error(tag({ uitag: 'img', src: null })), 'tag 1 (img): src must be a string');
    assert.equal(error(tag({ uitag: 'img', src: 'http://ex.com/a.png' })), 'tag 1 (img): src must start with https://');
    assert.equal(error(tag({ uitag: 'img', src: 'a.png' })), 'tag 1 (img): src must start with https://');
    assert.equal(error(tag({ uitag: 'img', src: 'https://' })), 'tag 1 (img): src is not a valid URL');
  });

  it('places head and foot images and hides any other position', () => {
    assert.deepEqual(
      [img({ src: '', position: 'head' }).position, img({ src: '', position: 'head' }).rawPosition],
      ['head', 'head'],
    );
    assert.equal(img({ src: '', position: 'foot' }).position, 'foot');
    for (const p of ['middle', 'HEAD', '', 'Foot']) {
      const s = img({ src: '', position: p });
      assert.deepEqual([s.position, s.rawPosition], ['hidden', p]);
    }
    const absent = img({ src: '' });
    assert.deepEqual([absent.position, absent.rawPosition], ['hidden', null]);
    assert.equal(error(tag({ uitag: 'img', src: '', position: 1 })), 'tag 1 (img): position must be a string');
  });

  it('takes an optional https href; empty or absent means the enlarged image', () => {
    assert.equal(img({ src: '', href: 'https://ex.com/x' }).href, 'https://ex.com/x');
    assert.equal(img({ src: '', href: '' }).href, null);
    assert.equal(img({ src: '' }).href, null);
    assert.equal(
      error(tag({ uitag: 'img', src: '', href: 'http://ex.com' })),
      'tag 1 (img): href must start with https://',
    );
    assert.equal(error(tag({ uitag: 'img', src: '', href: false })), 'tag 1 (img): href must be a string');
  });

  it('reads height and width as numbers, numeric strings or percentages', () => {
    const dims = (v: unknown): unknown[] => {
      const s = img({ src: '', position: 'foot', height: v, width: v });
      return [s.height, s.width];
    };
    assert.deepEqual(dims(100), [100, 100]);
    assert.deepEqual(dims(12.5), [12.5, 12.5]);
    assert.deepEqual(dims('100'), [100, 100]);
    assert.deepEqual(dims('12.50'), [12.5, 12.5]);
    assert.deepEqual(dims('50%'), ['50%', '50%']);
    assert.deepEqual(dims('12.5%'), ['12.5%', '12.5%']);
    assert.deepEqual(dims('0%'), ['0%', '0%']);
    assert.deepEqual(dims('100%'), ['100%', '100%']);
    assert.deepEqual(dims('050.0%'), ['50%', '50%']);
  });

  it('keeps 0 as 0', () => {
    for (const v of [0, '0', '0.0', -0, '-0']) {
      const s = img({ src: '', position: 'head', height: v, width: v });
      assert.ok(Object.is(s.height, 0) && Object.is(s.width, 0), String(v));
    }
  });

  it('applies the defaults for negative, absent and non-numeric values', () => {
    for (const v of [-1, '-1', '-0.5', 'abc', '100px', '', ' 100', 'Infinity', '150%', '-5%', '%', '1e999']) {
      const head = img({ src: '', position: 'head', height: v, width: v });
      assert.deepEqual([head.height, head.width], [115, null], String(v));
      const foot = img({ src: '', position: 'foot', height: v, width: v });
      assert.deepEqual([foot.height, foot.width], [230, null], String(v));
      const hidden = img({ src: '', position: 'side', height: v, width: v });
      assert.deepEqual([hidden.height, hidden.width], [null, null], String(v));
    }
    const head = img({ src: '', position: 'head' });
    assert.deepEqual([head.height, head.width], [115, null]);
    assert.equal(img({ src: '', position: 'foot' }).height, 230);
    assert.equal(img({ src: '' }).height, null);
    assert.equal(img({ src: '', height: 40 }).height, 40);
    // JSON.parse reads 1e999 as Infinity, which is no usable height.
    assert.deepEqual(
      only('{"uitag":"img","src":"","position":"head","height":1e999}'),
      img({ src: '', position: 'head' }),
    );
  });

  it('refuses other JSON types for height and width', () => {
    for (const v of [null, true, [], {}]) {
      assert.equal(
        error(tag({ uitag: 'img', src: '', height: v })),
        'tag 1 (img): height must be a string or a number',
      );
      assert.equal(error(tag({ uitag: 'img', src: '', width: v })), 'tag 1 (img): width must be a string or a number');
    }
  });
});

describe('helpers', () => {
  const link = tag({ uitag: 'a', text: 'x', href: 'https://ex.com/a' });
  const linkedImage = tag({ uitag: 'img', src: 'https://ex.com/i.png', position: 'foot', href: 'https://ex.com/b' });
  const placeholder = tag({ uitag: 'img', src: '', position: 'head' });

  const markup = (content: string): Markup => ({ segments: segments(content) });

  it('hasImage needs an image with a non-empty src', () => {
    assert.equal(hasImage(markup('plain')), false);
    assert.equal(hasImage(markup(`${link}${placeholder}`)), false);
    assert.equal(hasImage(markup(`${placeholder}${linkedImage}`)), true);
    assert.equal(hasImage(markup(tag({ uitag: 'img', src: 'https://ex.com/i.png', position: 'x' }))), true);
  });

  it('linkHrefs lists link and image hrefs in order', () => {
    assert.deepEqual(linkHrefs(markup(`a ${link} b ${placeholder}${linkedImage}${link}`)), [
      'https://ex.com/a',
      'https://ex.com/b',
      'https://ex.com/a',
    ]);
    assert.deepEqual(linkHrefs(markup('none')), []);
  });

  it('renders tags with uitag first and default fields omitted', () => {
    const content = `a ${tag({ uitag: 'font', text: 'f', bold: 'false', italic: 'true', color: '#abc' })} ${tag({ uitag: 'img', src: '', position: 'middle', height: '7', width: '-1' })}`;
    assert.equal(
      renderMarkup(markup(content)),
      'a {"uitag":"font","text":"f","italic":"true","color":"#AABBCC"} {"uitag":"img","src":"","position":"middle","height":7}',
    );
  });

  it('renders a position that disagrees with rawPosition by the position', () => {
    const hidden: Markup = {
      segments: [
        { kind: 'img', src: '', position: 'hidden', rawPosition: 'head', href: null, height: null, width: null },
      ],
    };
    assert.equal(renderMarkup(hidden), '{"uitag":"img","src":""}');
  });

  it('lays out head images, title, inline content and foot images, dropping hidden images', () => {
    const content =
      `Hi ${tag({ uitag: 'img', src: 'https://ex.com/f1.png', position: 'foot' })}` +
      tag({ uitag: 'img', src: 'https://ex.com/h1.png', position: 'head', href: 'https://ex.com/x', width: '50%' }) +
      `there ${tag({ uitag: 'img', src: 'https://ex.com/no.png', position: 'middle', height: 10 })}` +
      `${link}${tag({ uitag: 'img', src: '', position: 'head', height: 0 })}` +
      `${tag({ uitag: 'img', src: 'https://ex.com/f2.png', position: 'foot', height: '20%' })}!`;
    assert.deepEqual(layout('Title', markup(content)), {
      head: [
        { src: 'https://ex.com/h1.png', href: 'https://ex.com/x', height: 115, width: '50%' },
        { src: '', href: null, height: 0, width: null },
      ],
      title: 'Title',
      content: [
        { kind: 'text', text: 'Hi there ' },
        { kind: 'a', text: 'x', href: 'https://ex.com/a' },
        { kind: 'text', text: '!' },
      ],
      foot: [
        { src: 'https://ex.com/f1.png', href: null, height: 230, width: null },
        { src: 'https://ex.com/f2.png', href: null, height: '20%', width: null },
      ],
    });
    assert.deepEqual(layout(null, { segments: [] }), { head: [], title: null, content: [], foot: [] });
  });

  it('applies default heights in the layout when a segment has none', () => {
    const m: Markup = {
      segments: [
        { kind: 'img', src: '', position: 'head', rawPosition: 'head', href: null, height: null, width: null },
        { kind: 'img', src: '', position: 'foot', rawPosition: 'foot', href: null, height: null, width: 3 },
      ],
    };
    const l = layout(null, m);
    assert.deepEqual([l.head.map((b) => b.height), l.foot.map((b) => b.height)], [[115], [230]]);
  });
});

// ---- properties ----

/** Appends like the parser does: text merged, empty text dropped; copies so generated values stay intact. */
function normalize(list: Segment[]): Markup {
  const out: Segment[] = [];
  for (const s of list) {
    const last = out.at(-1);
    if (s.kind !== 'text') out.push({ ...s });
    else if (s.text === '') continue;
    else if (last?.kind === 'text') out[out.length - 1] = { kind: 'text', text: last.text + s.text };
    else out.push({ kind: 'text', text: s.text });
  }
  return { segments: out };
}

function assertNormalized(m: Markup): void {
  m.segments.forEach((s, i) => {
    if (s.kind !== 'text') return;
    assert.notEqual(s.text, '');
    assert.notEqual(m.segments[i + 1]?.kind, 'text');
  });
}

const anyText = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: 'binary', maxLength });
const httpsUrl = fc
  .oneof(
    fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true }),
    fc.constantFrom('https://ex.com', 'HTTPS://Ex.com/a?b=1#c', 'https://ex.com/{x}/"y"', 'hTTps://ex.com/\\'),
  )
  .filter((u) => URL.canParse(u));
const nonNegative = fc
  .oneof(fc.nat(5000), fc.double({ min: 0, max: 1e25, noNaN: true, noDefaultInfinity: true }))
  .map((n) => (n === 0 ? 0 : n));
const percent = fc.double({ min: 0, max: 100, noNaN: true }).map((n): `${number}%` => `${n === 0 ? 0 : n}%`);
const dimension = fc.oneof(nonNegative, percent);

// Closed fragments: every `{` the scanner stops at closes within the fragment, so they concatenate
// with anything. They include braces, quotes, backslashes and "uitag" that stay ordinary text.
const prose = fc.oneof(
  anyText(12).map((s) => s.replaceAll('{', '(')),
  fc.constantFrom(
    '{hello}',
    '{}',
    '}',
    '"',
    '\\',
    '\\"',
    '"uitag"',
    '{"note":{"uitag":"a"}}',
    '{"x":"{"}',
    '{ "a": [1, {"b": "}"}] }',
    '{x {y} "z}"}',
    '{uitag: a}',
  ),
);
const textSegment = fc
  .array(prose, { minLength: 1, maxLength: 4 })
  .map((parts): Segment => ({ kind: 'text', text: parts.join('') }));
// An unclosed `{` may only end the content: it swallows everything after it as text.
const unclosedTail = fc.constantFrom(' { unclosed', '{"a": "}', 'a { b "c \\" {x}');

const aSegment = fc.record({ kind: fc.constant('a'), text: anyText(20), href: httpsUrl });
const fontSegment = fc.record({
  kind: fc.constant('font'),
  text: anyText(20),
  bold: fc.boolean(),
  italic: fc.boolean(),
  color: fc.option(fc.stringMatching(/^#[0-9A-F]{6}$/)),
});
const src = fc.oneof(fc.constant(''), httpsUrl);
const href = fc.option(httpsUrl);
const placedImage = fc.constantFrom('head', 'foot').chain((position) =>
  fc.record({
    kind: fc.constant('img'),
    src,
    position: fc.constant(position),
    rawPosition: fc.constant(position),
    href,
    height: dimension,
    width: fc.option(dimension),
  }),
);
const hiddenImage = fc.record({
  kind: fc.constant('img'),
  src,
  position: fc.constant('hidden'),
  rawPosition: fc.option(anyText(8).filter((p) => p !== 'head' && p !== 'foot')),
  href,
  height: fc.option(dimension),
  width: fc.option(dimension),
});
const segment: fc.Arbitrary<Segment> = fc.oneof(textSegment, aSegment, fontSegment, placedImage, hiddenImage);

const validMarkup: fc.Arbitrary<Markup> = fc
  .tuple(fc.array(segment, { maxLength: 8 }), fc.option(unclosedTail))
  .map(([list, tail]) => normalize(tail === null ? list : [...list, { kind: 'text', text: tail }]));

/** Valid tag JSON with one character dropped: mostly malformed or invalid tags. */
const brokenTag = fc.tuple(fc.oneof(aSegment, fontSegment, placedImage, hiddenImage), fc.nat()).map(([s, n]) => {
  const json = renderMarkup({ segments: [s] });
  const at = n % json.length;
  return json.slice(0, at) + json.slice(at + 1);
});

/** Tag objects with plausible and implausible field values, a good share of them valid. */
const fieldValue = fc.oneof(
  fc.constantFrom('https://ex.com', 'http://ex.com', '', 'head', 'foot', 'middle', 'true', 'false'),
  fc.constantFrom('#abc', '#A1b2C3', 'red', '50%', '100.5%', '1e-7%', '-3', '12.50', '1e2', '-0', 'abc', ' 7'),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  anyText(6),
);
const fieldNames = {
  a: ['text', 'href'],
  font: ['text', 'bold', 'italic', 'color'],
  img: ['src', 'position', 'href', 'height', 'width'],
  b: ['text', 'colour'],
};
const tagObject = fc
  .constantFrom('a', 'font', 'img', 'b')
  .chain((uitag) =>
    fc
      .dictionary(fc.constantFrom(...fieldNames[uitag]), fieldValue, { maxKeys: 5 })
      .map((fields) => JSON.stringify({ uitag, ...fields })),
  );

/** Tags whose every field passes validation, values written in the many forms the parser accepts. */
const lenientDimension = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  anyText(6),
  fc.constantFrom('050.0%', '100%', '100.1%', '-0', ' 7', '1E2', '.5', '5.', '+3', '0%', '1e-7%', '12px'),
);
const lenientTag = fc.oneof(
  fc.record({ uitag: fc.constant('a'), text: anyText(10), href: httpsUrl }),
  fc.record(
    {
      uitag: fc.constant('font'),
      text: anyText(10),
      bold: fc.constantFrom('true', 'false'),
      italic: fc.constantFrom('true', 'false'),
      color: fc.constantFrom('#abc', '#A1b2C3', '#000', '#ffffff'),
    },
    { requiredKeys: ['uitag', 'text'] },
  ),
  fc.record(
    {
      uitag: fc.constant('img'),
      src,
      position: fc.oneof(fc.constantFrom('head', 'foot', 'HEAD', ''), anyText(4)),
      href: fc.oneof(fc.constant(''), httpsUrl),
      height: lenientDimension,
      width: lenientDimension,
    },
    { requiredKeys: ['uitag', 'src'] },
  ),
);
// Number forms JSON.stringify never writes.
const rawTag = fc.constantFrom(
  '{"uitag":"img","src":"","height":-0,"width":-0.0}',
  '{"uitag":"img","src":"","position":"head","height":1e999,"width":1E2}',
  '{ "uitag" : "font" , "text" : "\\u007b\\"" }',
);
const acceptable = fc
  .array(fc.oneof(prose, lenientTag.map(tag), rawTag, validMarkup.map(renderMarkup)), { maxLength: 6 })
  .map((parts) => parts.join(''));

const mixed = fc
  .array(
    fc.oneof(
      anyText(8),
      fc.constantFrom('{', '}', '"', '\\', '\\"', ':', ',', '[', ']', ' ', 'null', '-1', '"uitag"', '"uitag":'),
      fc.constantFrom('"a"', '"font"', '"img"', '"text"', '"href"', '"src"', '"https://ex.com"', '"http://ex.com"'),
      fc.constantFrom('"position"', '"head"', '"height"', '"50%"', '{hello}', 'a { b', '{"\\u0075itag":"a"}'),
      validMarkup.map(renderMarkup),
      brokenTag,
      tagObject,
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

describe('properties', () => {
  it('never throws, for any string', () => {
    const total = (s: string): void => {
      const r = parseMarkup(s);
      if (r.ok) assertNormalized(r.markup);
      else assert.equal(typeof r.error, 'string');
    };
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), total), { numRuns: 2000 });
    fc.assert(fc.property(mixed, total), { numRuns: 2000 });
  });

  it('renders a valid Markup to content that parses back to it', () => {
    fc.assert(
      fc.property(validMarkup, (m) => {
        const r = parseMarkup(renderMarkup(m));
        if (!r.ok) assert.fail(r.error);
        assert.deepEqual(r.markup, m);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips every accepted string through renderMarkup', () => {
    let accepted = 0;
    let withTags = 0;
    fc.assert(
      fc.property(fc.oneof(mixed, tagObject, acceptable), (s) => {
        const first = parseMarkup(s);
        if (!first.ok) return;
        accepted++;
        if (first.markup.segments.some((seg) => seg.kind !== 'text')) withTags++;
        const again = parseMarkup(renderMarkup(first.markup));
        if (!again.ok) assert.fail(`${again.error} after rendering ${JSON.stringify(s)}`);
        assert.deepEqual(again.markup, first.markup);
      }),
      { numRuns: 2000 },
    );
    // The property means little unless a fair share of the inputs, tags included, were accepted.
    assert.ok(withTags > 200, `only ${withTags} accepted inputs with tags (${accepted} accepted)`);
  });
});
