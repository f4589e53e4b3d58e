import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseMarkup } from '../markup.js';
import { plainText } from '../view.js';
import { ConversionError } from './builder.js';
import { bold, footImage, italic, link, tag } from '../../../../test/helpers/richtext.js';
import { htmlToRichText } from './html.js';

function refused(html: string): string {
  try {
    htmlToRichText(html);
  } catch (e) {
    assert.ok(e instanceof ConversionError, `a ConversionError, not ${String(e)}`);
    return e.message;
  }
  return assert.fail(`accepted ${JSON.stringify(html)}`);
}

describe('htmlToRichText', () => {
  it('maps a, b/strong, i/em, font color, img, br/p/div; entities decoded', () => {
    assert.equal(
      htmlToRichText(
        '<b>B</b><strong>S</strong> <i>I</i><em>E</em> <font color="#f00">red</font> <a href="https://x.example/">go</a>' +
          '<br>next<p>para</p><div>div</div>&lt;&amp;&#x41;&nbsp;<img src="https://i.example/p.png">',
      ),
      `${bold('BS')} ${italic('IE')} ${tag({ uitag: 'font', text: 'red', color: '#f00' })} ` +
        `${link('go', 'https://x.example/')}\nnext\npara\ndiv\n<&A\u00a0${footImage('https://i.example/p.png')}`,
    );
  });

  it('nests styles; a link keeps its text whole; an image inside a link opens it', () => {
    assert.equal(
      htmlToRichText('<b>a<i>b<font color="#00ff00">c</font></i></b>'),
      [
        bold('a'),
        tag({ uitag: 'font', text: 'b', bold: 'true', italic: 'true' }),
        tag({ uitag: 'font', text: 'c', bold: 'true', italic: 'true', color: '#00ff00' }),
      ].join(''),
    );
    assert.equal(
      htmlToRichText('<a href="https://x.example/">one <b>two</b><img src="https://i.example/1.png"></a>'),
      link('one two', 'https://x.example/') +
        tag({ uitag: 'img', src: 'https://i.example/1.png', position: 'foot', href: 'https://x.example/' }),
    );
  });

  it('drops other tags and every attribute, keeps their text; script and style go with their content', () => {
    assert.equal(
      htmlToRichText(
        '<span class="x" onclick="alert(1)">s</span><u>u</u><code>c</code><script>alert(1)</script><style>b{}</style>' +
          '<img src="https://i.example/x.png" onerror="alert(1)"><font color="red" face="x">named</font>',
      ),
      `suc${footImage('https://i.example/x.png')}named`,
    );
    assert.equal(htmlToRichText('<a>no address</a><a href="">empty</a><img>'), 'no addressempty');
  });

  it('line breaks: none at the start or the end, none doubled by nested blocks', () => {
    assert.equal(htmlToRichText('<p>a</p><p>b</p>'), 'a\nb');
    assert.equal(htmlToRichText('<div><div><p>x</p></div></div>y<br><br>z'), 'x\ny\n\nz');
  });

  it('text that looks like a tag object stays text', () => {
    const looks = tag({ uitag: 'a', text: 'x', href: 'https://evil.example/' });
    const out = htmlToRichText(looks.replaceAll('"', '&quot;'));
    assert.equal(out, tag({ uitag: 'font', text: looks }));
    assert.equal(plainText(out, true), looks);
  });

  it('refuses javascript:, http: and relative links and non-https images, and an empty result', () => {
    const refusals: [html: string, error: string][] = [
      ['<a href=" JavaScript:alert(1)">x</a>', 'links must be https:// URLs (got "JavaScript:alert(1)")'],
      ['<a href="http://x.example/">x</a>', 'links must be https:// URLs (got "http://x.example/")'],
      ['<a href="/path">x</a>', 'links must be https:// URLs (got "/path")'],
      ['<img src=x onerror=alert(1)>', 'images must be https:// URLs (got "x")'],
      ['<script>alert(1)</script>', 'nothing to show after conversion'],
      ['<b></b><p></p>', 'nothing to show after conversion'],
    ];
    for (const [html, error] of refusals) assert.equal(refused(html), error, html);
  });

  it('hostile input: unclosed tags, 5,000 nested tags, many entities', () => {
    assert.equal(htmlToRichText('<b><i>open'), tag({ uitag: 'font', text: 'open', bold: 'true', italic: 'true' }));
    assert.equal(htmlToRichText(`${'<b>'.repeat(5000)}deep`), bold('deep'));
    assert.equal(htmlToRichText(`${'<span><div>'.repeat(2500)}deep`), 'deep');
    assert.equal(htmlToRichText('&amp;'.repeat(1000)), '&'.repeat(1000));
    assert.equal(htmlToRichText('<<>>&&;;</x></b>ok'), '<<>>&&;;ok');
  });
});

// ------------------------------------------------------------------ property tests over random HTML

type Tree = { kind: 'text'; text: string } | { kind: 'el'; name: string; attrs: [string, string][]; children: Tree[] };

const escapeText = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replaceAll('"', '&quot;');

const VOID = new Set(['br', 'img', 'hr']);
const RAW = new Set(['script', 'style']);
const NORMAL = ['a', 'b', 'strong', 'i', 'em', 'font', 'p', 'div', 'span', 'u', 'code', 'pre', 'td', 'li', 'x-y'];
const GOOD_URL = fc.constantFrom('https://x.example/', 'https://x.example/a?b=1&c=2', 'HTTPS://Y.example');
const BAD_URL = fc.constantFrom('javascript:alert(1)', 'http://x.example/', '/relative', 'data:text/html,x');

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('{', '}', '"', '\n', 'é', '😀', '{"uitag":"a","text":"x","href":"https://e.example"}', '&', '<'),
);
const junkAttrs = fc.array(
  fc.tuple(fc.constantFrom('onerror', 'onclick', 'style', 'class', 'title', 'data-x', 'color'), fc.string()),
  { maxLength: 2 },
);
const color = fc.constantFrom('#f0a', '#00FF00', 'red', '', ' #123 ');
/** Mostly good addresses, sometimes a refused one. */
const url = fc.oneof({ weight: 9, arbitrary: GOOD_URL }, { weight: 1, arbitrary: BAD_URL });

const { tree } = fc.letrec<{ tree: Tree; node: Tree }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('node'), tie('node')),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text.map((t): Tree => ({ kind: 'text', text: t })),
    fc
      .tuple(fc.constantFrom(...NORMAL), junkAttrs, url, color, fc.array(tie('tree'), { maxLength: 4 }))
      .map(([name, attrs, href, colour, children]): Tree => {
        const own: [string, string][] = name === 'a' ? [['href', href]] : name === 'font' ? [['color', colour]] : [];
        return { kind: 'el', name, attrs: [...attrs.filter(([n]) => n !== 'color'), ...own], children };
      }),
    fc.tuple(fc.constantFrom(...VOID), junkAttrs, url).map(([name, attrs, src]): Tree => ({
      kind: 'el',
      name,
      attrs: name === 'img' ? [...attrs, ['src', src]] : attrs,
      children: [],
    })),
    fc
      .tuple(
        fc.constantFrom(...RAW),
        fc.string().filter((s) => !s.includes('<')),
      )
      .map(([name, raw]): Tree => ({ kind: 'el', name, attrs: [], children: [{ kind: 'text', text: raw }] })),
  ),
}));

function html(t: Tree, raw = false): string {
  if (t.kind === 'text') return raw ? t.text : escapeText(t.text);
  const attrs = t.attrs.map(([n, v]) => ` ${n}="${escapeAttr(v)}"`).join('');
  if (VOID.has(t.name)) return `<${t.name}${attrs}>`;
  return `<${t.name}${attrs}>${t.children.map((c) => html(c, RAW.has(t.name))).join('')}</${t.name}>`;
}

/** The text a reader should see (script and style excluded), and whether a link or image is refused. */
function expected(t: Tree): { text: string; refused: boolean; image: boolean } {
  if (t.kind === 'text') return { text: t.text, refused: false, image: false };
  if (RAW.has(t.name)) return { text: '', refused: false, image: false };
  const address = t.attrs.find(([n]) => (t.name === 'a' && n === 'href') || (t.name === 'img' && n === 'src'));
  const bad = address !== undefined && !address[1].toLowerCase().startsWith('https://');
  const inner = t.children.map(expected);
  return {
    text: inner.map((i) => i.text).join(''),
    refused: bad || inner.some((i) => i.refused),
    image: (t.name === 'img' && !bad) || inner.some((i) => i.image),
  };
}

const withoutBreaks = (s: string): string => s.replaceAll('\n', '');

describe('htmlToRichText over random HTML (fast-check)', () => {
  it('throws only ConversionError; its output parses as markup and shows the input’s text', () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), (trees) => {
        const input = trees.map((t) => html(t)).join('');
        const want = trees.map(expected);
        const refusedLink = want.some((w) => w.refused);
        let out: string;
        try {
          out = htmlToRichText(input);
        } catch (e) {
          assert.ok(e instanceof ConversionError, `only ConversionError escapes: ${String(e)}`);
          const empty = withoutBreaks(want.map((w) => w.text).join('')) === '' && !want.some((w) => w.image);
          assert.ok(refusedLink || empty, `refused without cause: ${e.message}`);
          return;
        }
        assert.ok(!refusedLink, 'a refused link or image was converted');
        const parsed = parseMarkup(out);
        assert.ok(parsed.ok, `output parses: ${parsed.ok ? '' : parsed.error}`);
        assert.equal(withoutBreaks(plainText(out, true)), withoutBreaks(want.map((w) => w.text).join('')));
      }),
      { numRuns: 500 },
    );
  });
});
