import { loadConfig } from '../../shared/config/load-config';
import { createKnex, dialectOf } from '../../shared/store/create-knex';
import { migrateToLatest } from '../../shared/store/migrate';
import { secretBoxOf } from '../../shared/signing/master-key';
import { AccountsRepository } from '../../shared/store/repositories/accounts-repository';
import { SealedSecrets } from '../../shared/store/repositories/sealed-secrets';

const USAGE = 'usage: npm run accounts -- list | deactivate <apiKey> | activate <apiKey> | reseal';
const COMMANDS = ['list', 'deactivate', 'activate', 'reseal'];
const WITHOUT_KEY = ['list', 'reseal'];

/**
 * The operator's account tool: the spec leaves deactivation to the operator. It works on the store the api uses
 * (DATABASE_URL or the SQLite file in DATA_DIR); running api processes notice within ACCOUNT_CACHE_TTL_MS.
 * `reseal` is the last step of a master-key rotation: every secret the store keeps sealed under
 * MASTER_KEY_PREVIOUS is sealed anew under MASTER_KEY (both set, as on the processes).
 */
export async function runAccountsCommand(
  args: string[],
  write: (line: string) => void,
  env: Partial<Record<string, string>> = process.env,
): Promise<number> {
  const [command, apiKey] = args;
  if (!command || !COMMANDS.includes(command) || (!WITHOUT_KEY.includes(command) && !apiKey)) {
    write(USAGE);
    return 2;
  }
  const config = loadConfig(env);
  if (command === 'reseal' && !config.masterKeyPrevious) {
    write('reseal needs MASTER_KEY_PREVIOUS (the key being rotated out) and MASTER_KEY (the new one)');
    return 2;
  }
  const knex = createKnex(config);
  try {
    await migrateToLatest(knex);
    if (command === 'reseal') {
      const box = secretBoxOf(config);
      const report = await new SealedSecrets(knex).resealAll((sealed, bound) => box.reseal(sealed, bound));
      write(
        `Resealed under MASTER_KEY: ${report.resealed.accounts} account secret(s), ${report.resealed.webhooks} ` +
          `webhook secret(s); ${report.current} already under it`,
      );
      for (const row of report.unreadable) write(`Neither key opens the secret of ${row}: left as it is`);
      return report.unreadable.length ? 1 : 0;
    }
    const accounts = new AccountsRepository(knex);
    if (command === 'list') {
      const all = await accounts.list();
      write(`${all.length} account(s) in the ${dialectOf(config)} store`);
      for (const a of all) {
        write(
          `${a.apiKey}  ${a.active ? 'active  ' : 'inactive'}  ${new Date(a.createdAt).toISOString()}  ${a.name}`,
        );
      }
      return 0;
    }
    const active = command === 'activate';
    if (!(await accounts.setActive(apiKey!.toLowerCase(), active, Date.now()))) {
      write(`No account with API key ${apiKey}`);
      return 1;
    }
    write(`Account ${apiKey} ${active ? 'activated' : 'deactivated'}`);
    return 0;
  } finally {
    await knex.destroy();
  }
}

if (require.main === module) {
  runAccountsCommand(process.argv.slice(2), (line) => console.log(line)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: Error) => {
      console.error(`accounts: ${err.message}`);
      process.exitCode = 1;
    },
  );
}
