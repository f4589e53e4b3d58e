// Starts the platform: settings, store, migrations, optional demo data, then listens until a
// signal asks it to stop, finishing requests in flight first.
import { buildApp } from './app.js';
import { boot, listen, StartupError } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { announceDemo, showsCredentials } from './demo/announce.js';
import { demoClient } from './demo/callback.js';
import { startDemoBot } from './demo/demo-bot.js';
import { ensureDemo } from './demo/demo.js';
import { demoSignIn } from './demo/sign-in.js';
import { redactingLogOptions } from './http/redact.js';
import { announceAdminToken } from './modules/admin/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  for (const warning of config.warnings) process.stderr.write(`warning: ${warning}\n`);
  const booted = await boot(config);
  const { services } = booted;
  if (booted.adminToken.generated !== undefined) {
    announceAdminToken(process.stdout, process.stderr, booted.adminToken.generated);
  }
  const demo = process.argv.includes('--demo') ? await ensureDemo(services) : undefined;
  let signIn: string | undefined;
  const app = await buildApp(services, {
    extraRoutes: (a) => {
      if (demo !== undefined && showsCredentials(process.stdout)) signIn = demoSignIn(a, services, demo.developerId);
      if (demo !== undefined) demoClient(a, services, demo);
    },
    logger: { level: config.logLevel, ...redactingLogOptions },
  });
  await listen(app, config);
  // Only now, serving: a boot that fails, or a CLI command, tells the other instances nothing.
  services.shared.bus.announceStart();
  services.dispatcher.start();
  services.retention.start();
  // The demo bot answers in the playground from the first minute (--demo only).
  const demoBot = demo === undefined ? undefined : startDemoBot(app, demo.bot.api_key);
  if (demo !== undefined) announceDemo(process.stdout, demo, config.publicUrl, signIn);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    void (demoBot?.stop() ?? Promise.resolve())
      .then(() => app.close())
      .then(() => services.dispatcher.stop())
      .then(() => services.retention.stop())
      .then(() => booted.close())
      .then(() => {
        clearTimeout(force);
        process.exit(0);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stop(signal);
    });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(
    `${e instanceof ConfigError || e instanceof StartupError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});
