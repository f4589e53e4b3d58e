// OAuth 2.0 authorization-code login: codes (single use, bound to app, user and redirect URI),
// JWT access tokens, rotating refresh tokens in families (reuse revokes the family), and the
// checks of Token-header calls. Rules of decisions.md section 5; PKCE (RFC 7636) and revocation
// (RFC 7009) for clients that use them.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import type { DB } from '../../db/types.js';
import type { UnitOfWork } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { takeOrRefuse, type Bucket, type RateLimiter } from '../../lib/rate-limit.js';
import { sha256Hex } from '../../lib/crypto.js';
import { newId, newSecretToken } from '../../lib/ids.js';
import { findApp, redirectUris } from '../apps/index.js';
import type { CredentialStore } from '../auth/index.js';
import type { AccessTokens } from './jwt.js';
import { allowClaims, appBucket, grantClaims } from './limits.js';
import { verifierMatches } from './pkce.js';
import * as repo from './repo.js';

/** Where the consent page (modules/consent) answers; named here because the metadata documents publish it. */
export const AUTHORIZE_PATH = '/oauth/authorize';

export const SCOPES = ['moment', 'payment'] as const;
export type Scope = (typeof SCOPES)[number];

export interface TokenRecord {
  access_token: string;
  expires_in: number;
  refresh_token: string;
  token_type: string;
}

export interface AppRef {
  app_id: string;
  name: string;
  owner_user_id: string;
}

export class OAuthService {
  private readonly appBucket: Bucket;

  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly credentials: CredentialStore,
    private readonly tokens: AccessTokens,
    private readonly config: Pick<Config, 'authCodeTtlS' | 'accessTokenTtlS' | 'refreshTokenTtlS'>,
    /** The login flow's budgets (limits.ts); undefined when RATE_LIMITS is off. */
    private readonly limiter: RateLimiter | undefined,
    tokenAppPerSecond: number,
  ) {
    this.appBucket = appBucket(tokenAppPerSecond);
  }

  /**
   * An exchange or a refresh that passed its checks takes from its login's and its app's budgets
   * before its write; refused (the login envelope's 429), it spends nothing, so the same code or
   * refresh token works after Retry-After.
   */
  private async admitGrant(appId: string, userId: string, now: number): Promise<void> {
    if (this.limiter === undefined) return;
    await takeOrRefuse(this.limiter, grantClaims(appId, userId, this.appBucket), now, Errors.loginRateLimited);
  }

  /** An Allow on the authorize page (a login code or a payment's one-time token): the user's budget (limits.ts). */
  async admitAllow(userId: string): Promise<void> {
    if (this.limiter === undefined) return;
    await takeOrRefuse(this.limiter, allowClaims(userId), this.clock.now());
  }

  /** Whether `appSecret` is the App Secret of an enabled app (cached; compared in constant time). */
  async checkApp(appId: string, appSecret: string): Promise<boolean> {
    return (await this.credentials.byAppSecret(appId, appSecret)) !== undefined;
  }

  /**
   * The app and whether `redirectUri` is one it registered, character for character. A bot's app is
   * never a login client, whatever redirect URIs it was given before the developer site refused them.
   */
  async appForRedirect(appId: string, redirectUri: string): Promise<AppRef | undefined> {
    const app = await findApp(this.db.k, appId);
    if (app === undefined || app.disabled === 1 || app.kind !== 'app') return undefined;
    return (await redirectUris(this.db.k, this.db.dialect, appId)).includes(redirectUri) ? app : undefined;
  }

  /** After the user allowed: a code for the app's server to exchange (with its verifier when `codeChallenge`). */
  async issueCode(
    app: AppRef,
    userId: string,
    redirectUri: string,
    scope: Scope,
    codeChallenge?: string,
  ): Promise<string> {
    const code = newSecretToken();
    const now = this.clock.now();
    await repo.insertCode(
      this.db.k,
      {
        code_hash: sha256Hex(code),
        app_id: app.app_id,
        user_id: userId,
        redirect_uri: redirectUri,
        scope,
        family_id: newId('tf'),
        expires_at: now + this.config.authCodeTtlS * 1000,
        code_challenge: codeChallenge ?? null,
      },
      now,
    );
    return code;
  }

  /**
   * Stores a new refresh token of `family`, inside the write that spends the code or the old
   * refresh token: both happen or neither, so a failed insert leaves the old one to retry with.
   */
  private async insertRefresh(tx: Kysely<DB>, familyId: string, now: number): Promise<string> {
    const refresh = newSecretToken();
    await repo.issueRefresh(
      tx,
      { token_hash: sha256Hex(refresh), family_id: familyId, expires_at: now + this.config.refreshTokenTtlS * 1000 },
      now,
    );
    return refresh;
  }

  /** The answer to a committed exchange or refresh: the access token is signed after the commit, outside it. */
  private async record(
    family: { family_id: string; app_id: string; user_id: string; scope: string },
    refresh: string,
    now: number,
  ): Promise<TokenRecord> {
    const access = await this.tokens.sign(
      { userId: family.user_id, appId: family.app_id, scope: family.scope, familyId: family.family_id },
      now,
      this.config.accessTokenTtlS,
    );
    return {
      access_token: access,
      expires_in: this.config.accessTokenTtlS,
      refresh_token: refresh,
      token_type: '',
    };
  }

  async exchangeCode(p: {
    code: string;
    app_id: string;
    app_secret: string;
    user_id: string;
    code_verifier?: string | undefined;
    redirect_uri?: string | undefined;
  }): Promise<TokenRecord> {
    if (!(await this.checkApp(p.app_id, p.app_secret))) throw new AppError(Errors.badAppCredentials);
    const now = this.clock.now();
    const hash = sha256Hex(p.code);
    const code = await repo.findCode(this.db.k, hash);
    if (code?.app_id !== p.app_id) throw new AppError(Errors.codeInvalid);
    if (code.used_at !== null) {
      // A second use: someone replays the code; everything the first use issued is revoked.
      await repo.revokeFamily(this.db.k, code.family_id, now);
      throw new AppError(Errors.codeInvalid);
    }
    if (code.expires_at <= now) throw new AppError(Errors.codeExpired);
    if (code.user_id !== p.user_id) throw new AppError(Errors.loginParamInvalid, 'user_id does not match the code');
    // Checked before the code is used: a wrong verifier or redirect_uri (someone else holding the
    // code, RFC 6749 section 4.1.3) spends nothing.
    if (!verifierMatches(code.code_challenge, p.code_verifier)) throw new AppError(Errors.codeInvalid);
    if (p.redirect_uri !== undefined && p.redirect_uri !== code.redirect_uri) throw new AppError(Errors.codeInvalid);
    const family = { family_id: code.family_id, app_id: code.app_id, user_id: code.user_id, scope: code.scope };
    await this.admitGrant(family.app_id, family.user_id, now);
    // The code spent, the family and its first refresh token: one transaction, so a failure leaves
    // the code unused and the client's retry with it succeeds instead of reading as a replay.
    const refresh = await this.work.run(async ({ tx }) => {
      if (!(await repo.useCode(tx, hash, now))) return undefined;
      await repo.insertFamily(tx, family, now);
      return this.insertRefresh(tx, family.family_id, now);
    });
    if (refresh === undefined) {
      await repo.revokeFamily(this.db.k, code.family_id, now);
      throw new AppError(Errors.codeInvalid);
    }
    return this.record(family, refresh, now);
  }

  async refresh(p: {
    refresh_token: string;
    app_id: string;
    app_secret: string;
    user_id: string;
  }): Promise<TokenRecord> {
    if (!(await this.checkApp(p.app_id, p.app_secret))) throw new AppError(Errors.badAppCredentials);
    const now = this.clock.now();
    const hash = sha256Hex(p.refresh_token);
    const token = await repo.findRefresh(this.db.k, hash);
    const family = token === undefined ? undefined : await repo.findFamily(this.db.k, token.family_id);
    if (token === undefined || family === undefined) throw new AppError(Errors.refreshFailed);
    if (family.app_id !== p.app_id || family.user_id !== p.user_id) throw new AppError(Errors.refreshFailed);
    if (family.revoked_at !== null || token.expires_at <= now) throw new AppError(Errors.refreshFailed);
    await this.admitGrant(family.app_id, family.user_id, now);
    // Rotation: each refresh token works once; a second use means it leaked, so the family ends.
    // The old token spent and the new one stored in one transaction: a failure spends nothing, so
    // the client's retry with the old token is not taken for a reuse.
    const refresh = await this.work.run(async ({ tx }) => {
      if (!(await repo.useRefresh(tx, hash, now))) return undefined;
      return this.insertRefresh(tx, family.family_id, now);
    });
    if (refresh === undefined) {
      await repo.revokeFamily(this.db.k, family.family_id, now);
      throw new AppError(Errors.refreshFailed);
    }
    return this.record(family, refresh, now);
  }

  /**
   * RFC 7009: ends the grant `token` belongs to (a refresh or an access token of this app), so its
   * refresh tokens and every access token issued from it stop working. An unknown token, or one of
   * another app, changes nothing and is not told apart (section 2.2).
   */
  async revoke(p: { app_id: string; app_secret: string; token: string; token_type_hint?: string | undefined }) {
    if (!(await this.checkApp(p.app_id, p.app_secret))) throw new AppError(Errors.badAppCredentials);
    const now = this.clock.now();
    // The hint orders the look-ups only (section 2.1): a wrong one still finds the token.
    const lookups = [() => this.refreshFamily(p.token), () => this.accessFamily(p.token, now)];
    if (p.token_type_hint === 'access_token') lookups.reverse();
    for (const lookup of lookups) {
      const family = await lookup();
      if (family === undefined) continue;
      if (family.app_id === p.app_id) await repo.revokeFamily(this.db.k, family.family_id, now);
      return;
    }
  }

  private async refreshFamily(token: string) {
    const row = await repo.findRefresh(this.db.k, sha256Hex(token));
    return row === undefined ? undefined : repo.findFamily(this.db.k, row.family_id);
  }

  private async accessFamily(token: string, now: number) {
    const verified = await this.tokens.verify(token, now);
    return verified.ok ? repo.findFamily(this.db.k, verified.claims.familyId) : undefined;
  }

  /** A Token-header call: the token must be live, of a live family, and for `userId`. */
  async authorizeToken(accessToken: string | undefined, userId: string) {
    if (accessToken === undefined || accessToken === '') throw new AppError(Errors.accessTokenInvalid);
    const verified = await this.tokens.verify(accessToken, this.clock.now());
    if (!verified.ok) {
      throw new AppError(verified.reason === 'expired' ? Errors.accessTokenExpired : Errors.accessTokenInvalid);
    }
    const family = await repo.findFamily(this.db.k, verified.claims.familyId);
    if (family === undefined || family.revoked_at !== null) throw new AppError(Errors.accessTokenInvalid);
    if (verified.claims.userId !== userId) throw new AppError(Errors.loginRequired);
    return verified.claims;
  }
}
