import { Type } from 'typebox';
import { strict } from '../../http/internal.js';

export const MAX_TEXT = 5000;
export const MAX_TITLE = 256;

const Text = Type.String({ maxLength: MAX_TEXT });
const Target = Type.String({ minLength: 1, maxLength: 128 });

export const GroupSendBody = Type.Object(
  {
    group_id: Target,
    to_user_id: Type.Optional(Type.String({ maxLength: 128, description: 'user to mention; may be empty' })),
    object_name: Type.String({ description: 'text, richtext (signed generation); RC:TxtMsg, RCD:Graphic (key-only)' }),
    title: Type.Optional(Type.String({ maxLength: MAX_TITLE })),
    content: Type.Optional(Text),
    message: Type.Optional(Text),
  },
  strict,
);

export const PrivateSendBody = Type.Object(
  {
    to_user_id: Target,
    object_name: Type.String({ description: 'text, richtext (signed generation); RCD:Command (key-only)' }),
    title: Type.Optional(Type.String({ maxLength: MAX_TITLE })),
    content: Type.Optional(Text),
    message: Type.Optional(Text),
  },
  strict,
);

/** The send endpoints' success, exactly as the description shows it. */
export const SendAccepted = Type.Object({
  code: Type.Literal(200),
  data: Type.Null(),
  message: Type.Literal('success'),
  success: Type.Literal(false),
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});
