import { Type } from 'typebox';
import { Paging } from '../../lib/schemas.js';

const Text = Type.String({ minLength: 1, maxLength: 512 });

export const AccessTokenParams = Type.Object({
  grant_type: Text,
  code: Text,
  app_id: Text,
  app_secret: Text,
  user_id: Text,
});

export const RefreshTokenParams = Type.Object({
  grant_type: Text,
  refresh_token: Text,
  app_id: Text,
  app_secret: Text,
  user_id: Text,
  // Listed by the description beside the refresh parameters; their role is not shown, so unused.
  access_token: Type.Optional(Type.String({ maxLength: 4096 })),
  serial_id: Type.Optional(Type.String({ maxLength: 128 })),
});

export const TokenRecord = Type.Object({
  access_token: Type.String(),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  token_type: Type.String(),
});

/** Failures of the login flow: `{code, data: null, message, success: false}`. */
export const LoginFailure = Type.Object({
  code: Type.Integer(),
  data: Type.Null(),
  message: Type.String(),
  success: Type.Literal(false),
});

export const TokenUserQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const TokenFollowersQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }), ...Paging });
export const TokenHeaders = Type.Object({ access_token: Type.Optional(Type.String({ maxLength: 4096 })) });

export const UserWithLevel = Type.Object({
  name: Type.String(),
  wallet_address: Type.String(),
  avatar: Type.String(),
  uid: Type.String(),
  level: Type.Integer(),
  level_icon: Type.String(),
});
