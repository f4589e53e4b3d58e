// One wording of validation failures (src/http/validation.ts describeValidation): route schemas
// checked by Ajv and event envelopes and data checked by TypeBox's compiler name a failure alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { Ajv } from 'ajv';
import { describeValidation } from '../src/http/validation.js';

const schema = Type.Object(
  {
    name: Type.String(),
    level: Type.Optional(Type.Integer({ minimum: 0 })),
    box: Type.Optional(Type.Object({ size: Type.Integer() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

// Options as the route schemas' strict body validator has them (src/http/validation.ts).
const ajv = new Ajv({ allErrors: false, strict: false }).compile(schema);
const typebox = Compile(schema);

function both(data: unknown): [string, string] {
  assert.equal(ajv(data), false);
  assert.equal(typebox.Check(data), false);
  return [describeValidation('data', ajv.errors ?? []), describeValidation('data', typebox.Errors(data))];
}

describe('describeValidation', () => {
  // The rule's own words come from the library; they agree on these.
  it('words a failure the same from Ajv and from TypeBox', () => {
    const cases: [unknown, string][] = [
      [{}, 'data.name: required'],
      [{ name: 'a', colour: 'red' }, 'data.colour: unknown field'],
      [{ name: 'a', box: { size: 1, extra: true } }, 'data.box.extra: unknown field'],
      [{ name: 'a', box: {} }, 'data.box.size: required'],
      [{ name: 5 }, 'data.name: must be string'],
      [{ name: 'a', level: -1 }, 'data.level: must be >= 0'],
    ];
    for (const [data, words] of cases) assert.deepEqual(both(data), [words, words], JSON.stringify(data));
  });

  it('names the field alone without a context, and the context alone without an error', () => {
    assert.equal(describeValidation('', typebox.Errors({ name: 1 })), 'name: must be string');
    assert.equal(describeValidation('body', []), 'body');
  });
});
