// Schemas shared by the operator surface.
import { Type } from 'typebox';

export const OperatorError = Type.Object({
  error: Type.String(),
  message: Type.String(),
  index: Type.Optional(Type.Integer()),
});

export const operatorErrors = {
  400: OperatorError,
  401: OperatorError,
  404: OperatorError,
  409: OperatorError,
  413: OperatorError,
};
export const strict = { additionalProperties: false } as const;
