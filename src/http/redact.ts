// Secrets can arrive in query strings (app_secret, tokens, codes); logs get them masked.
const SECRET_PARAMS = /([?&](?:app_secret|access_token|refresh_token|code|secret_token|signature)=)[^&#]*/gi;

/** The demo's sign-in link carries its secret in the path. */
const SECRET_PATHS = /^(\/demo\/sign-in\/)[^?#]*/;

export const redactedUrl = (url: string): string =>
  url.replace(SECRET_PARAMS, '$1[redacted]').replace(SECRET_PATHS, '$1[redacted]');
