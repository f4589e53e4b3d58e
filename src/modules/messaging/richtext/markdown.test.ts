import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseMarkup } from '../markup.js';
import { ConversionError } from './builder.js';
import { bold, footImage, italic, link, tag } from '../../../../test/helpers/richtext.js';
import { markdownToRichText } from './markdown.js';

const MODES = ['Markdown', 'MarkdownV2'] as const;

describe('markdownToRichText', () => {
  it('bold, italic, links, images; code and underline as plain text', () => {
    for (const mode of MODES) {
      assert.equal(
        markdownToRichText('*b* **B** _i_ __u__ `c` [go](https://x.example/) ![p](https://i.example/p.png)', mode),
        `${bold('b')} ${bold('B')} ${italic('i')} u c ${link('go', 'https://x.example/')} ` +
          footImage('https://i.example/p.png'),
        mode,
      );
    }
  });

  it('MarkdownV2 escapes come out as the plain character; lists, headings and HTML stay literal', () => {
    assert.equal(
      markdownToRichText('Price: 1\\.50\\! \\*not bold\\* \\_x\\_ \\(a\\) \\#tag', 'MarkdownV2'),
      'Price: 1.50! *not bold* _x_ (a) #tag',
    );
    for (const mode of MODES) {
      assert.equal(
        markdownToRichText('1. Buy milk\n# 5\n> quote\n- item', mode),
        '1. Buy milk\n# 5\n> quote\n- item',
        mode,
      );
      assert.equal(markdownToRichText('<b>x</b> &amp;', mode), '<b>x</b> &', mode);
    }
  });

  it('MarkdownV2: ~strike~ and ||spoiler|| keep only their text, like __underline__', () => {
    assert.equal(
      markdownToRichText('*bold* ~strike~ ||spoiler|| __u__', 'MarkdownV2'),
      `${bold('bold')} strike spoiler u`,
    );
    assert.equal(
      markdownToRichText('_a ~b~_ a~b~c [~l~ ||k||](https://x.example/)', 'MarkdownV2'),
      `${italic('a b')} abc ${link('l k', 'https://x.example/')}`,
    );
  });

  it('MarkdownV2: escaped, code-span and unmatched ~ and | stay text', () => {
    assert.equal(
      markdownToRichText('\\~s\\~ \\|\\|p\\|\\| `a~b~ ||c||` a ~ b x||y a|b ~ ||', 'MarkdownV2'),
      '~s~ ||p|| a~b~ ||c|| a ~ b x||y a|b ~ ||',
    );
    assert.equal(markdownToRichText('|||x||| 5 ~ 6', 'MarkdownV2'), '|x| 5 ~ 6');
  });

  it('legacy Markdown has no strike or spoiler: ~ and | are characters', () => {
    assert.equal(
      markdownToRichText('*bold* ~strike~ ||spoiler|| __u__', 'Markdown'),
      `${bold('bold')} ~strike~ ||spoiler|| u`,
    );
  });

  it('paragraphs and fenced code keep their line breaks; text with a brace travels in a font tag', () => {
    for (const mode of MODES) {
      assert.equal(markdownToRichText('a\nb\n\nc\n```\ncode\n```\nd', mode), 'a\nb\n\nc\n\ncode\n\nd', mode);
      assert.equal(markdownToRichText('x {y}', mode), tag({ uitag: 'font', text: 'x {y}' }), mode);
    }
  });

  it('refuses javascript:, http: and mailto: links and non-https images', () => {
    for (const [md, got] of [
      ['[x](javascript:alert(1))', 'links must be https:// URLs (got "javascript:alert(1)")'],
      ['[x](http://x.example/)', 'links must be https:// URLs (got "http://x.example/")'],
      ['<http://x.example/>', 'links must be https:// URLs (got "http://x.example/")'],
      ['![x](data:image/png;base64,AA)', 'images must be https:// URLs (got "data:image/png;base64,AA")'],
    ]) {
      for (const mode of MODES) assert.throws(() => markdownToRichText(md ?? '', mode), new ConversionError(got), md);
    }
  });

  it('random Markdown: only ConversionError escapes, and the output parses as markup', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(
        '*',
        '**',
        '_',
        '__',
        '`',
        '[',
        '](https://x.example/)',
        '](javascript:x)',
        '![',
        '\\',
        '\n',
        '{',
        '"',
        '<',
        '~',
        '|',
        '||',
      ),
    );
    fc.assert(
      fc.property(fc.constantFrom(...MODES), fc.array(piece, { maxLength: 30 }), (mode, pieces) => {
        try {
          const parsed = parseMarkup(markdownToRichText(pieces.join(''), mode));
          assert.ok(parsed.ok, `output parses: ${parsed.ok ? '' : parsed.error}`);
        } catch (e) {
          assert.ok(e instanceof ConversionError, `only ConversionError escapes: ${String(e)}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('hostile nesting converts cleanly', () => {
    for (const mode of MODES) {
      assert.equal(markdownToRichText('['.repeat(5000), mode), '['.repeat(5000), mode);
      const deep = markdownToRichText(`${'*'.repeat(2500)}x${'*'.repeat(2500)}`, mode);
      assert.ok(parseMarkup(deep).ok && deep.includes('x'), deep.slice(0, 80));
    }
    assert.equal(
      markdownToRichText(`${'a~'.repeat(2500)}|${'a||'.repeat(2500)}`, 'MarkdownV2'),
      `${'a'.repeat(2500)}|${'a'.repeat(2500)}`,
    );
  });
});
