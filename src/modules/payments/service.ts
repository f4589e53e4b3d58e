// Payments in points: the authorize page issues a serial and a one-time token; the app's server
// then asks for the transfer, which moves the points in the double-entry ledger exactly once.
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import { retryOnConflict } from '../../db/retry.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/crypto.js';
import { newId, newSecretToken } from '../../lib/ids.js';
import { toCents } from '../../lib/money.js';
import type { AppRef, OAuthService } from '../oauth/index.js';
import { post, userAccount } from '../points/index.js';
import { usersExist } from '../users/index.js';

/** The origin marker returned with payment results. */
export const SOURCE = 'open_platform';

export interface PaymentRequest {
  amount: string | number;
  payer_user_id: string;
  receiver_user_id: string;
  pay_type: string;
  pay_info: string;
}

export interface TransferResult {
  code: string;
  msg: string;
  source: string;
}

const result = (code: string, msg: string): TransferResult => ({ code, msg, source: SOURCE });
const INSUFFICIENT = result('-7048', 'balance insufficient; transfer failed');

class Insufficient extends Error {}

export class PaymentsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly oauth: OAuthService,
    private readonly config: Pick<Config, 'paymentTokenTtlS'>,
  ) {}

  /**
   * Checks a payment request as the authorize page receives it; returns it in hundredths. With
   * `app`, the other side must be the developer's user (the app's owner): otherwise a `receive`
   * order would take points from a user who never consented.
   */
  async validate(
    userId: string,
    p: PaymentRequest,
    app?: AppRef,
  ): Promise<{ cents: number; payer: string; receiver: string }> {
    const cents = toCents(p.amount);
    const bad = (detail: string) => new AppError(Errors.loginParamInvalid, detail);
    if (cents === undefined || cents <= 0) throw bad('amount: greater than 0, at most two decimals');
    if (p.pay_type !== 'send' && p.pay_type !== 'receive') throw bad('pay_type: send or receive');
    // The authorizing user pays (send) or receives (receive); the other side is the developer's user.
    const mine = p.pay_type === 'send' ? p.payer_user_id : p.receiver_user_id;
    if (mine !== userId) throw bad(`${p.pay_type === 'send' ? 'payer_user_id' : 'receiver_user_id'}: must be you`);
    if (p.payer_user_id === p.receiver_user_id) throw bad('payer and receiver are the same user');
    const theirs = p.pay_type === 'send' ? p.receiver_user_id : p.payer_user_id;
    if (app !== undefined && theirs !== app.owner_user_id) {
      throw bad(`${p.pay_type === 'send' ? 'receiver_user_id' : 'payer_user_id'}: must be the developer's user`);
    }
    if (!(await usersExist(this.db.k, [p.payer_user_id, p.receiver_user_id]))) throw bad('unknown payer or receiver');
    if (p.pay_info.length > 1024) throw bad('pay_info: at most 1024 characters');
    return { cents, payer: p.payer_user_id, receiver: p.receiver_user_id };
  }

  /** After the user confirmed: the serial and its one-time token (valid PAYMENT_TOKEN_TTL_S). */
  async authorize(app: AppRef, userId: string, p: PaymentRequest) {
    const { cents, payer, receiver } = await this.validate(userId, p, app);
    const token = newSecretToken();
    const serial = newId('pay');
    const now = this.clock.now();
    await this.db.k
      .insertInto('payment_orders')
      .values({
        serial_id: serial,
        app_id: app.app_id,
        authorizing_user_id: userId,
        payer_user_id: payer,
        receiver_user_id: receiver,
        amount_cents: cents,
        pay_type: p.pay_type === 'send' ? 'send' : 'receive',
        pay_info: p.pay_info,
        token_hash: sha256Hex(token),
        token_expires_at: now + this.config.paymentTokenTtlS * 1000,
        status: 'authorized',
        result_code: null,
        created_at: now,
        completed_at: null,
      })
      .execute();
    return { code: token, serial_id: serial, source: SOURCE };
  }

  async transfer(p: {
    app_id: string;
    app_secret: string;
    access_token: string;
    serial_id: string;
  }): Promise<TransferResult> {
    if ((await this.oauth.checkApp(p.app_id, p.app_secret)) === undefined)
      return result('-2004', 'app_id or app_secret invalid');
    const now = this.clock.now();
    const order = await this.db.k
      .selectFrom('payment_orders')
      .selectAll()
      .where('serial_id', '=', p.serial_id)
      .executeTakeFirst();
    if (order?.app_id !== p.app_id || order.token_hash !== sha256Hex(p.access_token)) {
      return result('-2006', 'serial_id and one-time token do not match');
    }
    if (order.status === 'completed') return result('-2016', 'repeated transfer request');
    if (order.status === 'failed') return INSUFFICIENT;
    if (order.token_expires_at <= now) return result('-2006', 'one-time token expired');
    try {
      return await retryOnConflict(() =>
        this.db.k.transaction().execute(async (tx) => {
          // Claiming the order first: of two racing requests for one serial, one moves the points.
          const claimed = await tx
            .updateTable('payment_orders')
            .set({ status: 'completed', result_code: '1', completed_at: now })
            .where('serial_id', '=', order.serial_id)
            .where('status', '=', 'authorized')
            .executeTakeFirst();
          if (Number(claimed.numUpdatedRows) === 0) return result('-2016', 'repeated transfer request');
          const moved = await post(
            tx,
            {
              kind: 'transfer',
              reference: order.serial_id,
              from: { account: userAccount(order.payer_user_id), userId: order.payer_user_id },
              to: { account: userAccount(order.receiver_user_id), userId: order.receiver_user_id },
              cents: order.amount_cents,
            },
            now,
          );
          if (!moved) throw new Insufficient();
          return result('1', 'success');
        }),
      );
    } catch (e) {
      if (!(e instanceof Insufficient)) throw e;
      await this.db.k
        .updateTable('payment_orders')
        .set({ status: 'failed', result_code: INSUFFICIENT.code, completed_at: now })
        .where('serial_id', '=', order.serial_id)
        .where('status', '=', 'authorized')
        .execute();
      return INSUFFICIENT;
    }
  }
}
