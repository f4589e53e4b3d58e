// One wording of validation failures (src/http/validation.ts describeValidation): route schemas
// checked by Ajv and event envelopes and data checked by TypeBox's compiler name a failure alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { Ajv } from 'ajv';
import {
  compileCoercing,
  describeValidation,
  type ValidationIssue,
  validatorCompiler,
} from '../src/http/validation.js';

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

const route = (httpPart: string, s: object = schema) => ({ schema: s, method: 'POST', url: '/x', httpPart });
type Validator = ((data: unknown, context?: { parentData: object; parentDataProperty: string }) => unknown) & {
  errors?: ValidationIssue[] | null;
  schemaEnv?: unknown;
};
const compile = (eager: boolean, httpPart: string, s?: object) =>
  validatorCompiler(eager)(route(httpPart, s)) as Validator;

// Route validators are compiled on a route's first request (src/http/validation.ts); Fastify reads
// the errors of a failed check off the validator function itself.
describe('validatorCompiler', () => {
  it('lazy and eager validators answer alike and leave the same errors on themselves', () => {
    for (const httpPart of ['body', 'querystring']) {
      const lazy = compile(false, httpPart);
      const eager = compile(true, httpPart);
      for (const data of [{ name: 'a', level: 2 }, { name: 'a', level: -1 }, { name: 1 }, { name: 'a', other: true }]) {
        // Each gets its own copy: coercion rewrites what it checks.
        const [forLazy, forEager] = [structuredClone(data), structuredClone(data)];
        assert.equal(lazy(forLazy), eager(forEager), JSON.stringify(data));
        assert.deepEqual(lazy.errors, eager.errors, JSON.stringify(data));
        assert.deepEqual(forLazy, forEager, JSON.stringify(data));
      }
      // A passed check clears the errors of the failed one before it.
      assert.equal(lazy({ name: 'a' }), true);
      assert.equal(lazy.errors, null);
    }
  });

  it('coerces text only outside bodies, as before', () => {
    assert.equal(compile(false, 'querystring')({ name: 'a', level: '3' }), true);
    assert.equal(compile(false, 'body')({ name: 'a', level: '3' }), false);
  });

  it('hands Ajv the parent of the value, as Fastify does for a function with a schemaEnv', () => {
    const lazy = compile(false, 'querystring', { type: 'integer' });
    assert.equal(Boolean(lazy.schemaEnv), true, 'Fastify passes the parent only to a function with a schemaEnv');
    const parent = { q: '3' };
    assert.equal(lazy(parent.q, { parentData: parent, parentDataProperty: 'q' }), true);
    assert.deepEqual(parent, { q: 3 });
  });

  it('a schema Ajv cannot compile fails at once when eager, on the first request when lazy', () => {
    const broken = { $ref: '#/definitions/missing' };
    assert.throws(() => compile(true, 'body', broken));
    const lazy = compile(false, 'body', broken);
    assert.throws(() => lazy({}));
  });
});

// An integer given as text (query strings, path parameters, form fields) is decimal digits with a
// minus sign at most, on every surface: Ajv's coercion alone reads JavaScript's number syntax.
describe('integers as text', () => {
  const query = Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  });
  const lenient = ['1e1', '0x10', '0b1', '0o7', '+5', ' 5', '5 ', '5.0', '1_0', 'Infinity', ''];

  it('route validators (eager or lazy) and the parameter readers refuse other spellings', () => {
    const validators = [compile(true, 'querystring', query), compile(false, 'querystring', query)];
    for (const validate of [...validators, compileCoercing(query)]) {
      for (const text of lenient) {
        assert.equal(validate({ limit: text }), false, JSON.stringify(text));
        assert.equal(describeValidation('querystring', validate.errors ?? []), 'querystring.limit: must be integer');
        // A repeated query parameter arrives as an array.
        assert.equal(validate({ limit: [text] }), false, JSON.stringify([text]));
      }
      for (const [text, read] of [
        ['5', 5],
        ['-5', -5],
        ['007', 7],
      ] as const) {
        const data: Record<string, unknown> = { limit: text };
        assert.equal(validate(data), true, text);
        assert.equal(data.limit, read);
      }
      // A number (a JSON body's) and a union's text are not held to it.
      assert.equal(validate({ limit: 5 }), true);
      assert.equal(validate({ id: '0x10' }), true);
    }
  });

  it('holds a schema that is itself an integer to it too', () => {
    const lazy = compile(false, 'params', { type: 'integer' });
    const parent = { q: '1e1' };
    assert.equal(lazy(parent.q, { parentData: parent, parentDataProperty: 'q' }), false);
    assert.deepEqual(parent, { q: '1e1' });
  });
});
