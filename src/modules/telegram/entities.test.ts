// Telegram entities to rich markup: whatever offsets a client sends, the markup keeps the text as
// sent and never cuts a character of two UTF-16 units into lone surrogates.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { textFault } from '../../lib/nul.js';
import { markupOfEntities, textAndEntities } from './entities.js';

const entity = (max: number) =>
  fc.record({
    type: fc.constantFrom('bold', 'italic', 'text_link', 'code'),
    offset: fc.integer({ min: -2, max: max + 2 }),
    length: fc.integer({ min: -1, max: max + 2 }),
    url: fc.constant('https://example.com/'),
  });

it('an entity that splits an emoji styles the whole emoji', () => {
  const markup = markupOfEntities('😀😀ab', [{ type: 'bold', offset: 1, length: 2 }]);
  assert.equal(markup, '{"uitag":"font","text":"😀😀","bold":"true"}ab');
});

it('an empty entity inside an emoji styles nothing (no markup at all)', () => {
  assert.equal(markupOfEntities('😀a', [{ type: 'bold', offset: 1, length: 0 }]), undefined);
  const beside = [
    { type: 'bold', offset: 1, length: 0 },
    { type: 'italic', offset: 2, length: 1 },
  ];
  assert.equal(markupOfEntities('😀a', beside), '😀{"uitag":"font","text":"a","italic":"true"}');
});

it('markup of any entities keeps the text whole and well formed (property)', () => {
  fc.assert(
    fc.property(
      fc
        .string({ unit: 'grapheme', maxLength: 12 })
        .chain((text) => fc.tuple(fc.constant(text), fc.array(entity(text.length), { maxLength: 4 }))),
      ([text, entities]) => {
        const markup = markupOfEntities(text, entities);
        if (markup === undefined) return;
        assert.equal(textFault(markup), undefined, markup);
        assert.equal(textAndEntities(markup, true).text, text);
      },
    ),
    { numRuns: 2_000 },
  );
});
