// The operator console's own rules: signing in with the operator's token (the cookie holds a new
// random token, kept as a hash bound to the operator's token, never the operator's), the audit
// trail of operator actions, and the read-outs of its pages. Decisions and redeliveries go through
// the bots and developers services, the same ones the operator API and the developer site use.
import type { Db } from '../../db/connect.js';
import type { UnitOfWork, Work } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/crypto.js';
import { newSecretToken } from '../../lib/ids.js';
import type { BotsService } from '../bots/index.js';
import type { DevelopersService } from '../developers/index.js';
import * as repo from './repo.js';

export const CONSOLE_COOKIE = 'op_console';
const SESSION_TTL_MS = 12 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;

/**
 * Whether a console sign-in may not take this name: one whose letters and digits (compatibility-
 * folded, any case) spell "operator API" or "bearer token" would read in the audit trail as the
 * actor of the operator API's bearer token (API_ACTOR), and the trail must tell the two apart.
 */
export function reservedOperatorName(name: string): boolean {
  const folded = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
  return folded.includes('operatorapi') || folded.includes('bearertoken');
}

export interface AuditEntry {
  actor: string;
  action: string;
  target: string;
  detail: string;
}

export class ConsoleService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly work: UnitOfWork,
    private readonly bots: BotsService,
    private readonly developers: DevelopersService,
    private readonly adminTokenHash: string,
  ) {}

  /** A new console session for whoever knows the operator's token; answers the cookie's token. */
  async signIn(token: string, name: string): Promise<string> {
    if (!safeEqual(sha256Hex(token), this.adminTokenHash)) throw new AppError(Errors.unauthorized);
    if (reservedOperatorName(name)) throw new AppError(Errors.invalidRequest, 'that name is kept for the operator API');
    const session = newSecretToken();
    const operator = name.trim() === '' ? 'operator' : name.trim();
    await this.work.run(async (w) => {
      await repo.insertSession(w.tx, {
        session_hash: this.sessionHash(session),
        operator_name: operator,
        created_at: w.now,
        expires_at: w.now + SESSION_TTL_MS,
      });
      await this.record(w, { actor: operator, action: 'console.sign_in', target: '', detail: '' });
    });
    return session;
  }

  /** The operator's name of a live console session. */
  async operatorOf(session: string | undefined): Promise<string | undefined> {
    if (session === undefined || session === '') return undefined;
    const row = await repo.findSession(this.db.k, this.sessionHash(session));
    return row !== undefined && row.expires_at > this.clock.now() ? row.operator_name : undefined;
  }

  async signOut(session: string): Promise<void> {
    await repo.deleteSession(this.db.k, this.sessionHash(session));
  }

  /**
   * The stored hash of a console session, bound to the operator's token it was signed in with:
   * changing ADMIN_TOKEN (the only way to rotate it) ends every session of the old token, whose
   * hash is then found no more.
   */
  private sessionHash(session: string): string {
    return sha256Hex(`${session}\n${this.adminTokenHash}`);
  }

  record(w: Work, e: AuditEntry): Promise<void> {
    return repo.insertAudit(w.tx, { ...e, created_at: w.now });
  }

  audit(limit = 200) {
    return repo.recentAudit(this.db.k, limit);
  }

  /** Approves or rejects an application, recorded in the same transaction. */
  decide(actor: string, id: string, decision: 'approved' | 'rejected', note: string | null) {
    return this.work.run(async (w) => {
      const decided = await this.bots.decideIn(w, id, decision, note);
      await this.record(w, {
        actor,
        action: decision === 'approved' ? 'application.approve' : 'application.reject',
        target: `${decided.bot_user_id} ${decided.permission}`,
        detail: note ?? '',
      });
      return decided;
    });
  }

  search(text: string) {
    return repo.searchApps(this.db.k, text.trim(), 100);
  }

  /** A bot as its developer sees it, with its webhook health. */
  async bot(botUserId: string) {
    const owner = await this.ownerOf(botUserId);
    const since = this.clock.now() - HOUR_MS;
    return {
      owner,
      bot: await this.developers.bot(owner, botUserId),
      deliveries: await this.developers.deliveries(owner, botUserId),
      pending: await repo.pendingUpdates(this.db.k, botUserId),
      lastHour: await repo.deliveriesSince(this.db.k, botUserId, since),
    };
  }

  async redeliver(actor: string, botUserId: string, deliveryId: number): Promise<void> {
    const owner = await this.ownerOf(botUserId);
    await this.work.run(async (w) => {
      await this.developers.redeliver(w, owner, botUserId, deliveryId);
      await this.record(w, { actor, action: 'delivery.redeliver', target: botUserId, detail: String(deliveryId) });
    });
  }

  private async ownerOf(botUserId: string): Promise<string> {
    const owner = await repo.ownerOfBot(this.db.k, botUserId);
    if (owner === undefined) throw new AppError(Errors.unknownBot);
    return owner;
  }
}
