import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseMarkup } from '../markup.js';
import { ConversionError } from './builder.js';
import { bold, footImage, italic, link, tag } from '../../../../test/helpers/richtext.js';
import { markdownToRichText } from './markdown.js';

describe('markdownToRichText', () => {
  it('bold, italic, links, images; code and underline as plain text', () => {
    assert.equal(
      markdownToRichText('*b* **B** _i_ __u__ `c` [go](https://x.example/) ![p](https://i.example/p.png)'),
      `${bold('b')} ${bold('B')} ${italic('i')} u c ${link('go', 'https://x.example/')} ` +
        footImage('https://i.example/p.png'),
    );
  });

  it('MarkdownV2 escapes come out as the plain character; lists, headings and HTML stay literal', () => {
    assert.equal(
      markdownToRichText('Price: 1\\.50\\! \\*not bold\\* \\_x\\_ \\(a\\) \\#tag'),
      'Price: 1.50! *not bold* _x_ (a) #tag',
    );
    assert.equal(markdownToRichText('1. Buy milk\n# 5\n> quote\n- item'), '1. Buy milk\n# 5\n> quote\n- item');
    assert.equal(markdownToRichText('<b>x</b> &amp;'), '<b>x</b> &');
  });

  it('paragraphs and fenced code keep their line breaks; text with a brace travels in a font tag', () => {
    assert.equal(markdownToRichText('a\nb\n\nc\n```\ncode\n```\nd'), 'a\nb\n\nc\n\ncode\n\nd');
    assert.equal(markdownToRichText('x {y}'), tag({ uitag: 'font', text: 'x {y}' }));
  });

  it('refuses javascript:, http: and mailto: links and non-https images', () => {
    for (const [md, got] of [
      ['[x](javascript:alert(1))', 'links must be https:// URLs (got "javascript:alert(1)")'],
      ['[x](http://x.example/)', 'links must be https:// URLs (got "http://x.example/")'],
      ['<http://x.example/>', 'links must be https:// URLs (got "http://x.example/")'],
      ['![x](data:image/png;base64,AA)', 'images must be https:// URLs (got "data:image/png;base64,AA")'],
    ]) {
      assert.throws(() => markdownToRichText(md ?? ''), new ConversionError(got), md);
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
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        try {
          const parsed = parseMarkup(markdownToRichText(pieces.join('')));
          assert.ok(parsed.ok, `output parses: ${parsed.ok ? '' : parsed.error}`);
        } catch (e) {
          assert.ok(e instanceof ConversionError, `only ConversionError escapes: ${String(e)}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('hostile nesting converts cleanly', () => {
    assert.equal(markdownToRichText('['.repeat(5000)), '['.repeat(5000));
    const deep = markdownToRichText(`${'*'.repeat(2500)}x${'*'.repeat(2500)}`);
    assert.ok(parseMarkup(deep).ok && deep.includes('x'), deep.slice(0, 80));
  });
});
