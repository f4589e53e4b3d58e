import { Type } from 'typebox';

export const PublicUser = Type.Object({
  name: Type.String(),
  wallet_address: Type.String(),
  avatar: Type.String(),
  uid: Type.String(),
});

export const UserIdQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }) });
