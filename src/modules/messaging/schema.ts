import { Type, type TObject, type TSchema } from 'typebox';
import { strict } from '../../http/internal.js';

export const MAX_TEXT = 5000;
export const MAX_TITLE = 256;

const Text = Type.String({ maxLength: MAX_TEXT });
const Title = Type.String({ maxLength: MAX_TITLE });
const target = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
/** Checked in the message type's own branch (see byType): older types ignore the fields they do not use. */
const Checked = Type.Optional(Type.Unknown());

const TITLE =
  'string, at most 256 characters: the rich message title (richtext, RCD:Graphic); ignored by RC:TxtMsg and RCD:Command';
const CONTENT =
  'string, 1 to 5000 characters: the text (text) or rich markup (richtext, RCD:Graphic); ignored by RC:TxtMsg and RCD:Command';
const MESSAGE = 'string, 1 to 5000 characters: the text of RC:TxtMsg and RCD:Command; ignored by the other types';

type Case = readonly [objectName: string, fields: TObject];

type Conditional = {
  if: TSchema;
  then: TSchema;
  else: TSchema;
};

/**
 * Each message type checks the fields it uses. The key-only generation's types (decisions.md
 * section 7) ignore every other field, as the clients written for it send extra ones (href,
 * from_user_id, title, ...); text, richtext and any unknown type get `otherwise`, which refuses
 * unknown fields. Nested if/then/else, so a refusal names the field of the matched branch.
 */
function byType(first: Case, rest: readonly Case[], otherwise: TObject): Conditional {
  const [objectName, fields] = first;
  const [next, ...later] = rest;
  return {
    if: Type.Object({ object_name: Type.Literal(objectName) }),
    then: fields,
    else: next === undefined ? otherwise : byType(next, later, otherwise),
  };
}

const Graphic = Type.Object({ title: Type.Optional(Title), content: Type.Optional(Text) });
const TextOnly = Type.Object({ message: Type.Optional(Text) });
const signedFields = {
  object_name: Checked,
  title: Type.Optional(Title),
  content: Type.Optional(Text),
  message: Type.Optional(Text),
};

export const GroupSendBody = Type.Object(
  {
    group_id: target('the group to send to'),
    to_user_id: Type.Optional(
      Type.Union([Type.String({ maxLength: 128 }), Type.Null()], {
        description: 'user to mention; may be empty or null',
      }),
    ),
    object_name: Type.String({ description: 'text, richtext (signed generation); RC:TxtMsg, RCD:Graphic (key-only)' }),
    title: Type.Optional(Type.Unknown({ description: TITLE })),
    content: Type.Optional(Type.Unknown({ description: CONTENT })),
    message: Type.Optional(Type.Unknown({ description: MESSAGE })),
  },
  byType(
    ['RC:TxtMsg', TextOnly],
    [['RCD:Graphic', Graphic]],
    Type.Object({ group_id: Checked, to_user_id: Checked, ...signedFields }, strict),
  ),
);

export const PrivateSendBody = Type.Object(
  {
    to_user_id: target('the user to send to'),
    object_name: Type.String({
      description: 'text, richtext (signed generation); RCD:Command, RCD:Graphic (key-only)',
    }),
    title: Type.Optional(Type.Unknown({ description: TITLE })),
    content: Type.Optional(Type.Unknown({ description: CONTENT })),
    message: Type.Optional(Type.Unknown({ description: MESSAGE })),
  },
  byType(
    ['RCD:Command', TextOnly],
    [['RCD:Graphic', Graphic]],
    Type.Object({ to_user_id: Checked, ...signedFields }, strict),
  ),
);

/** The send endpoints' success, exactly as the description shows it. */
export const SendAccepted = Type.Object({
  code: Type.Literal(200),
  data: Type.Null(),
  message: Type.Literal('success'),
  success: Type.Literal(false),
});
